// Package stats says whether two sets of measurements differ: the ratio
// of one to the other with its 95% confidence interval, the p of "no
// difference", and a verdict (better, worse, or ~ when the interval holds
// 1). It is Welch's t-interval on the logarithms: measurements of a rate or
// a latency vary by factors (a busy core slows everything by its share), so
// their logs are nearer normal and a ratio's interval is symmetric in them.
//
// Why not benchstat's Mann-Whitney U test: with 3 repetitions a side (what
// a study can afford) its smallest two-sided p is 0.1, so it can never
// find a difference at 0.05, however large. The t-interval uses the
// values, not only their order, and its t quantile (4.30 with 2 degrees of
// freedom) widens the interval for the few samples; it reaches a verdict
// from 2 samples a side when they agree, and says ~ when they do not.
//
// A sample is either independent repetitions, or the successive intervals
// of one run (a Series): these are correlated (a slow second is followed
// by another), so they count as fewer, n(1-r)/(1+r) with r their lag-1
// autocorrelation, and they say nothing of the drift between runs, which
// the caller adds as Sample.Drift. A bias the caller knows of
// (CompareBiased: what the machine's run queue predicts of the ratio)
// widens the interval towards it.
package stats

import (
	"math"
	"slices"
)

// Level is the confidence of the intervals, and 1-Level the p below which
// a difference is significant.
const Level = 0.95

// Sample is one side's measurements of a metric.
type Sample struct {
	// Values are positive measurements: repetitions' values, or a run's
	// per-interval values when Series.
	Values []float64
	// Series: Values are a run's successive intervals, not independent.
	Series bool
	// Drift is an extra standard deviation, on the log scale, of the
	// whole side's level: what the samples cannot show of the noise between
	// runs (a single run's intervals share its machine's state).
	Drift float64
}

// Result is the comparison of New against Base.
type Result struct {
	// Known: both sides had two or more usable samples; without, the
	// noise is unknown and the interval and p are not set.
	Known bool `json:"known"`
	// Ratio is new/base at the given centre; Low and High its interval.
	Ratio float64 `json:"ratio"`
	Low   float64 `json:"low,omitempty"`
	High  float64 `json:"high,omitempty"`
	// P is the two-sided p of no difference.
	P float64 `json:"p,omitempty"`
	// NBase and NNew are the samples of each side; EffBase and EffNew
	// what they count as (fewer for a series).
	NBase   int     `json:"n_base"`
	NNew    int     `json:"n_new"`
	EffBase float64 `json:"eff_base,omitempty"`
	EffNew  float64 `json:"eff_new,omitempty"`
}

// Significant reports whether the interval excludes no change.
func (r Result) Significant() bool { return r.Known && (r.Low > 1 || r.High < 1) }

// Compare compares new against base, the ratio centred on base and new
// (the figures the caller shows: medians, a run's whole-window value),
// its spread from the samples' logs. A side of a Series with fewer than
// two values but a Drift is known by its drift alone.
func Compare(base, new Sample, centreBase, centreNew float64) Result {
	return CompareBiased(base, new, centreBase, centreNew, 0)
}

// CompareBiased is Compare when some of the change may be a known bias
// rather than a change: bias is the log of the ratio new/base that the
// bias alone would make (the machine's, from the two sides' run queues:
// a side whose processes waited longer for a core goes slower). How much
// of it applies is not known, so the change itself lies between the
// observed one and the observed one less the bias: the interval spans
// both, widened by the noise, and p is that of the nearer of the two
// (1 when they lie on either side of no change). A bias against the
// change (the faster side was the starved one) never hides it.
func CompareBiased(base, new Sample, centreBase, centreNew, bias float64) Result {
	r := Result{NBase: len(base.Values), NNew: len(new.Values)}
	if centreBase > 0 && centreNew > 0 {
		r.Ratio = centreNew / centreBase
	}
	eb, fb, nb, okb := side(base)
	en, fn, nn, okn := side(new)
	if !okb || !okn || r.Ratio == 0 {
		return r
	}
	r.Known, r.EffBase, r.EffNew = true, round2(nb), round2(nn)
	se := math.Sqrt(eb + en)
	d := math.Log(r.Ratio)
	lo, hi, beyond := biased(d, bias)
	if se == 0 { // identical samples on both sides: nothing varies
		r.Low, r.High, r.P = math.Exp(lo), math.Exp(hi), 1
		if beyond != 0 {
			r.P = 0
		}
		return r
	}
	// Welch-Satterthwaite degrees of freedom; a drift counts as known
	// (infinite freedom).
	df := 1e6
	if fb+fn > 0 {
		df = min((eb+en)*(eb+en)/(fb+fn), 1e6)
	}
	q := TQuantile((1+Level)/2, df)
	r.Low, r.High = math.Exp(lo-q*se), math.Exp(hi+q*se)
	r.P = 2 * (1 - TCDF(beyond/se, df))
	return r
}

// biased is where the change lies when the log ratio d may hold up to
// bias of a known bias: between d and d-bias (lo, hi), and that span's
// distance from no change (0 when it holds it).
func biased(d, bias float64) (lo, hi, beyond float64) {
	lo, hi = min(d, d-bias), max(d, d-bias)
	if lo > 0 || hi < 0 {
		beyond = min(math.Abs(lo), math.Abs(hi))
	}
	return lo, hi, beyond
}

// side is a sample's variance of its level on the log scale (the samples'
// variance over their effective count, plus the drift's square), its term
// of Welch's degrees of freedom, its effective count (0 for a drift
// alone), and false when neither samples nor a drift say anything.
func side(s Sample) (v, dfTerm, n float64, ok bool) {
	lv, n, ok := logVar(s)
	if !ok {
		if s.Series && s.Drift > 0 && len(s.Values) < 2 {
			return s.Drift * s.Drift, 0, 0, true
		}
		return 0, 0, 0, false
	}
	return lv/n + s.Drift*s.Drift, sq(lv/n) / (n - 1), n, true
}

// logVar is the variance of the logs of s's values and what they count as;
// false with fewer than two positive values (or, for repetitions, any
// value not positive: a repetition that measured nothing).
func logVar(s Sample) (v, n float64, ok bool) {
	ys := make([]float64, 0, len(s.Values))
	for _, x := range s.Values {
		if x > 0 && !math.IsInf(x, 0) {
			ys = append(ys, math.Log(x))
		}
	}
	if len(ys) < 2 || len(ys) < len(s.Values) && !s.Series {
		return 0, 0, false
	}
	m := mean(ys)
	for _, y := range ys {
		v += sq(y - m)
	}
	v /= float64(len(ys) - 1)
	n = float64(len(ys))
	if s.Series {
		n = Effective(ys)
	}
	return v, n, true
}

// Effective is how many independent samples a series counts as:
// n(1-r)/(1+r) with r its lag-1 autocorrelation (0 when negative, at most
// 0.9), at least 2 for n >= 2.
func Effective(ys []float64) float64 {
	n := float64(len(ys))
	if len(ys) < 3 {
		return n
	}
	m := mean(ys)
	var num, den float64
	for i, y := range ys {
		den += sq(y - m)
		if i > 0 {
			num += (y - m) * (ys[i-1] - m)
		}
	}
	r := 0.0
	if den > 0 {
		r = min(max(num/den, 0), 0.9)
	}
	return max(n*(1-r)/(1+r), 2)
}

// Spread is the standard deviation of the logs of xs (about the relative
// standard deviation for small spreads), 0 with fewer than two.
func Spread(xs []float64) float64 {
	v, _, ok := logVar(Sample{Values: xs})
	if !ok {
		return 0
	}
	return math.Sqrt(v)
}

// Median is the median of xs (0 when empty).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func sq(x float64) float64 { return x * x }

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// TCDF is Student's t distribution's cumulative probability at t with df
// degrees of freedom.
func TCDF(t, df float64) float64 {
	x := df / (df + t*t)
	tail := 0.5 * betaInc(df/2, 0.5, x)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// TQuantile is the t with TCDF(t, df) = p, for 0.5 <= p < 1.
func TQuantile(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for TCDF(hi, df) < p && hi < 1e12 {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if TCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// betaInc is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method).
func betaInc(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaCF(b, a, 1-x)/b
	}
	return front * betaCF(a, b, x) / a
}

func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d, c = 1+num*d, 1+num/c
		d, c = 1/nz(d, tiny), nz(c, tiny)
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d, c = 1+num*d, 1+num/c
		d, c = 1/nz(d, tiny), nz(c, tiny)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

func nz(x, tiny float64) float64 {
	if math.Abs(x) < tiny {
		return tiny
	}
	return x
}

// The verdicts of a comparison.
const (
	Better = "better"
	Worse  = "worse"
	// Same is no significant difference: the interval holds 1.
	Same = "~"
	// Unknown is a comparison whose noise is unknown (one sample a side).
	Unknown = "?"
)

// Verdict is better or worse when the difference is significant (higher
// is better when higherBetter), Same when it is not, Unknown without
// the noise.
func (r Result) Verdict(higherBetter bool) string {
	switch {
	case !r.Known:
		return Unknown
	case !r.Significant():
		return Same
	case (r.Ratio > 1) == higherBetter:
		return Better
	}
	return Worse
}

// CompareCounts compares two rates of events, kb of nb against kn of nn
// (errors of attempts, say), by the log of their ratio with Poisson
// noise, sqrt(1/kb + 1/kn), half an event added to each count so that
// none of them is zero: a handful of errors against none is ~, thirty
// against none is not.
func CompareCounts(kb, nb, kn, nn float64) Result {
	return CompareRates(kb, nb, kn, nn, 0, 0)
}

// CompareRates is CompareCounts of kb events in nb (attempts, or seconds)
// against kn in nn, with drift, a standard deviation of each side's level
// on the log scale beyond the counts' Poisson noise (a single run's
// machine), and a known bias as in CompareBiased: a rate that fell to a
// handful of events is judged by its count, not its few intervals.
func CompareRates(kb, nb, kn, nn, drift, bias float64) Result {
	r := Result{NBase: int(nb), NNew: int(nn)}
	if nb <= 0 || nn <= 0 {
		return r
	}
	rb, rn := (kb+0.5)/(nb+0.5), (kn+0.5)/(nn+0.5)
	r.Known, r.Ratio = true, rn/rb
	d, se := math.Log(r.Ratio), math.Sqrt(1/(kb+0.5)+1/(kn+0.5)+2*drift*drift)
	lo, hi, beyond := biased(d, bias)
	q := TQuantile((1+Level)/2, 1e6)
	r.Low, r.High = math.Exp(lo-q*se), math.Exp(hi+q*se)
	r.P = 2 * (1 - TCDF(beyond/se, 1e6))
	return r
}
