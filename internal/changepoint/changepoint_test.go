package changepoint

import (
	"math/rand/v2"
	"testing"
)

// noisy is n values around level with a relative noise of sd (normal,
// from a fixed seed).
func noisy(n int, level, sd float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * (1 + sd*r.NormFloat64())
	}
	return xs
}

// TestStepIsFound: 20 points with 5% noise, 30% slower from the 12th
// (index 11): one change there, its medians about 100 and 70.
func TestStepIsFound(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		xs := noisy(20, 100, 0.05, seed)
		for i := 11; i < 20; i++ {
			xs[i] *= 0.7
		}
		cs := Detect(xs, Options{})
		if len(cs) != 1 || cs[0].Index != 11 {
			t.Fatalf("seed %d: changes %+v, want one at index 11", seed, cs)
		}
		if r := cs[0].Ratio(); r < 0.6 || r > 0.8 || cs[0].P >= DefaultP {
			t.Errorf("seed %d: %+v: ratio %.2f", seed, cs[0], r)
		}
	}
}

// TestNoiseIsNoChange: 20 points of 5% noise, and of 30% noise, have
// no change, in (almost) every one of 50 series: the level is 0.01 per
// series.
func TestNoiseIsNoChange(t *testing.T) {
	found := 0
	for seed := uint64(1); seed <= 50; seed++ {
		for _, sd := range []float64{0.05, 0.3} {
			if cs := Detect(noisy(20, 100, sd, seed), Options{}); len(cs) > 0 {
				found++
				t.Logf("seed %d sd %g: %+v", seed, sd, cs)
			}
		}
	}
	if found > 3 {
		t.Errorf("changes found in %d of 100 series of noise", found)
	}
}

// TestTwoSteps: two slowdowns are two changes, each with its own
// medians.
func TestTwoSteps(t *testing.T) {
	xs := noisy(30, 100, 0.03, 7)
	for i := 10; i < 30; i++ {
		xs[i] *= 1.5
		if i >= 20 {
			xs[i] *= 1.5
		}
	}
	cs := Detect(xs, Options{})
	if len(cs) != 2 || cs[0].Index != 10 || cs[1].Index != 20 {
		t.Fatalf("changes %+v, want at 10 and 20", cs)
	}
	if r := cs[1].Ratio(); r < 1.4 || r > 1.6 {
		t.Errorf("second change %.2fx, want about 1.5x (its own segments' medians)", r)
	}
}

// TestUnusable: a value that is not positive, or a series too short,
// has no changes.
func TestUnusable(t *testing.T) {
	if cs := Detect([]float64{1, 1, 1, 0, 2, 2, 2}, Options{}); cs != nil {
		t.Errorf("with a 0: %+v", cs)
	}
	if cs := Detect([]float64{1, 1, 2, 2, 2}, Options{}); cs != nil {
		t.Errorf("5 points: %+v", cs)
	}
}
