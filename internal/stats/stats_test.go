package stats

import (
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g", what, got, want)
	}
}

// TestTDistribution against the tables' values.
func TestTDistribution(t *testing.T) {
	for _, c := range []struct{ df, q float64 }{{1, 12.7062047}, {2, 4.30265273}, {4, 2.77644511}, {10, 2.22813885}, {30, 2.04227246}, {1e6, 1.95996}} {
		near(t, "t(0.975, df)", TQuantile(0.975, c.df), c.q, 1e-4)
	}
	near(t, "TCDF(2, 5)", TCDF(2, 5), 0.94903026, 1e-7)
	near(t, "TCDF(-1, 3)", TCDF(-1, 3), 0.19550111, 1e-7)
	near(t, "TCDF(0, 7)", TCDF(0, 7), 0.5, 1e-12)
}

// TestWelch: R's t.test(log(new), log(base)) on values whose logs are
// 1,2,3 and 4,5,6: t = 3.6742, df = 4, p = 0.02131, 95% interval of the
// difference 0.7330 to 5.2670.
func TestWelch(t *testing.T) {
	e := math.Exp
	b := Sample{Values: []float64{e(1), e(2), e(3)}}
	n := Sample{Values: []float64{e(4), e(5), e(6)}}
	r := Compare(b, n, e(2), e(5))
	if !r.Known || r.EffBase != 3 || r.EffNew != 3 {
		t.Fatalf("%+v: want known, 3 and 3", r)
	}
	near(t, "ratio", math.Log(r.Ratio), 3, 1e-12)
	near(t, "p", r.P, 0.02131, 1e-4)
	near(t, "low", math.Log(r.Low), 0.7330, 1e-3)
	near(t, "high", math.Log(r.High), 5.2670, 1e-3)
	if r.Verdict(true) != Better || r.Verdict(false) != Worse {
		t.Errorf("verdicts %s %s, want better (higher is better) and worse", r.Verdict(true), r.Verdict(false))
	}
}

// TestThreeAgainstThree: the case Mann-Whitney cannot decide (its least p
// with 3 a side is 0.1) is decided when the repetitions agree, and is ~
// when they spread as widely as the study (26% and 78%).
func TestThreeAgainstThree(t *testing.T) {
	tight := Compare(Sample{Values: []float64{100, 102, 98}}, Sample{Values: []float64{80, 81, 79}}, 100, 80)
	if tight.Verdict(true) != Worse || tight.P >= 0.05 {
		t.Errorf("tight 3+3, -20%%: %+v, want worse", tight)
	}
	wide := Compare(Sample{Values: []float64{70, 80.7, 90}}, Sample{Values: []float64{50, 85.8, 117}}, 80.7, 85.8)
	if wide.Verdict(true) != Same || wide.Low >= 1 || wide.High <= 1 {
		t.Errorf("wide 3+3: %+v, want ~ with 1 inside the interval", wide)
	}
}

func TestUnknown(t *testing.T) {
	r := Compare(Sample{Values: []float64{100}}, Sample{Values: []float64{50}}, 100, 50)
	if r.Known || r.Verdict(true) != Unknown || r.Ratio != 0.5 {
		t.Errorf("one a side: %+v, want the ratio, noise unknown", r)
	}
	// A zero among repetitions (a stalled run) is no measurement of a rate.
	if r := Compare(Sample{Values: []float64{100, 0, 90}}, Sample{Values: []float64{50, 60}}, 95, 55); r.Known {
		t.Errorf("a zero repetition: %+v, want unknown", r)
	}
}

// TestSeries: successive intervals that drift count as fewer samples, and
// a drift term widens the interval.
func TestSeries(t *testing.T) {
	if n := Effective([]float64{1, 2, 3, 4, 5, 6, 7, 8}); n != 2 {
		t.Errorf("a trend of 8 counts as %g, want 2 (the floor)", n)
	}
	if n := Effective([]float64{1, 2, 1, 2, 1, 2, 1, 2}); n != 8 {
		t.Errorf("alternating 8 counts as %g, want 8", n)
	}
	b := Sample{Values: []float64{100, 101, 99, 100, 101, 99}, Series: true}
	n := Sample{Values: []float64{90, 91, 89, 90, 91, 89}, Series: true}
	if r := Compare(b, n, 100, 90); r.Verdict(true) != Worse {
		t.Errorf("steady series, -10%%: %+v, want worse", r)
	}
	b.Drift, n.Drift = 0.2, 0.2
	if r := Compare(b, n, 100, 90); r.Verdict(true) != Same {
		t.Errorf("the same with 20%% drift a side: %+v, want ~", r)
	}
}

// TestCounts: 0 errors against 3 of as many attempts is ~, against 30 it
// is worse; the interval of 10 against 10 holds 1.
func TestCounts(t *testing.T) {
	if r := CompareCounts(0, 1000, 3, 1000); r.Verdict(false) != Same {
		t.Errorf("0 vs 3 errors: %+v, want ~", r)
	}
	if r := CompareCounts(0, 1000, 30, 1000); r.Verdict(false) != Worse {
		t.Errorf("0 vs 30 errors: %+v, want worse", r)
	}
	r := CompareCounts(10, 1000, 10, 1000)
	near(t, "ratio", r.Ratio, 1, 1e-12)
	// ln interval: +-1.96*sqrt(2/10.5) = +-0.8554
	near(t, "high", math.Log(r.High), 0.8554, 1e-3)
}

// TestBiasWidens: a known bias that alone would make the ratio 2x widens
// the interval towards it: a 1.8x change with tight samples, significant
// without it, is not (the interval reaches down to half the plain one's
// low end), a 4x one still is; a bias the other way (the bias alone would
// make it 0.5x) hides nothing.
func TestBiasWidens(t *testing.T) {
	b := Sample{Values: []float64{100, 101, 99, 100.5}}
	n18 := Sample{Values: []float64{180, 181, 179, 180.5}}
	n4 := Sample{Values: []float64{400, 404, 396, 402}}
	plain := Compare(b, n18, 100, 180)
	if !plain.Significant() {
		t.Fatalf("1.8x without bias: %+v, want significant", plain)
	}
	r := CompareBiased(b, n18, 100, 180, math.Log(2))
	if r.Significant() || math.Abs(r.Low*2/plain.Low-1) > 1e-9 || math.Abs(r.High/plain.High-1) > 1e-9 || r.P < 0.5 {
		t.Errorf("1.8x with a 2x bias: %+v (plain %+v), want the interval reaching half the low end and not significant", r, plain)
	}
	if r := CompareBiased(b, n4, 100, 400, math.Log(2)); !r.Significant() || r.P > 0.01 {
		t.Errorf("4x with a 2x bias: %+v, want significant", r)
	}
	if r := CompareBiased(b, n18, 100, 180, -math.Log(2)); !r.Significant() || math.Abs(r.Low/plain.Low-1) > 1e-9 || math.Abs(r.P-plain.P) > 1e-12 {
		t.Errorf("1.8x with a 0.5x bias: %+v (plain %+v), want as plain at the low end, significant", r, plain)
	}
}
