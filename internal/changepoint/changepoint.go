// Package changepoint finds where a series of measurements changed level:
// E-divisive with means (Matteson and James, 2014), the method of MongoDB's
// performance CI and, with a faster test, of DataStax Hunter. Each step
// splits a segment of the series where the energy distance between the
// values before and after is largest, and keeps the split only when a
// permutation test says so: the same statistic over shuffled copies of
// the segment is as large in fewer than a Level's share of them. It
// recurses into the segments a kept split makes until no split is
// significant.
//
// Values are compared on the log scale (a slowdown of 30% is the same
// distance at any level, as in internal/stats), with the moment alpha = 1
// (the distance itself: the statistic then sees a change of the mean, and
// of the spread). The shuffles come from a fixed seed, so a series always
// gives the same answer.
package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/txnbench/txnbench/internal/stats"
)

// Options steer Detect; the zero value takes the defaults.
type Options struct {
	// P is the permutation p below which a split is kept (DefaultP).
	P float64
	// MinSize is the fewest points on each side of a split (DefaultMinSize).
	MinSize int
	// Permutations is the shuffles of each test (DefaultPermutations).
	Permutations int
}

// The defaults: a split must beat 99 in 100 shuffles (a history has many
// metrics, each tested, so 0.05 would name a change in most histories
// of noise alone), from 3 points a side (two points cannot tell a step
// from an outlier).
const (
	DefaultP            = 0.01
	DefaultMinSize      = 3
	DefaultPermutations = 499
)

// Change is one point where the series changed.
type Change struct {
	// Index is the first point after the change (0-based).
	Index int `json:"index"`
	// Before and After are the medians of the points between the
	// neighbouring changes (or the ends) and this one.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// P is the permutation test's p of "no change here": the share of
	// shuffles of the segment whose best split was at least as strong.
	P float64 `json:"p"`
}

// Ratio is After over Before (0 when Before is 0).
func (c Change) Ratio() float64 {
	if c.Before == 0 {
		return 0
	}
	return c.After / c.Before
}

// Detect returns the changes of xs in the order of the series. Values
// that are not positive (a run that measured nothing) make the series
// unusable: nil.
func Detect(xs []float64, opt Options) []Change {
	if opt.P <= 0 {
		opt.P = DefaultP
	}
	if opt.MinSize < 2 {
		opt.MinSize = DefaultMinSize
	}
	if opt.Permutations <= 0 {
		opt.Permutations = DefaultPermutations
	}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil
		}
		ys[i] = math.Log(x)
	}
	rng := rand.New(rand.NewPCG(38, 43))
	// cuts holds the segment bounds found so far, 0 and len(ys) included;
	// ps the p of each inner cut.
	cuts := []int{0, len(ys)}
	ps := map[int]float64{}
	for {
		best, bestQ, lo, hi := -1, 0.0, 0, 0
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			if t, q := split(ys[a:b], opt.MinSize); t > 0 && q > bestQ {
				best, bestQ, lo, hi = a+t, q, a, b
			}
		}
		if best < 0 {
			break
		}
		p := permutationP(ys[lo:hi], bestQ, opt, rng)
		if p >= opt.P {
			break
		}
		ps[best] = p
		cuts = append(cuts, best)
		slices.Sort(cuts)
	}
	var out []Change
	for i := 1; i+1 < len(cuts); i++ {
		c := cuts[i]
		out = append(out, Change{Index: c, P: ps[c],
			Before: stats.Median(xs[cuts[i-1]:c]), After: stats.Median(xs[c:cuts[i+1]])})
	}
	return out
}

// permutationP is the share of shuffles of seg whose best split is at
// least q, the observed one counted among them (so never 0).
func permutationP(seg []float64, q float64, opt Options, rng *rand.Rand) float64 {
	s := slices.Clone(seg)
	over := 1
	for range opt.Permutations {
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		if _, qs := split(s, opt.MinSize); qs >= q {
			over++
		}
	}
	return float64(over) / float64(opt.Permutations+1)
}

// split is the index t (minSize <= t <= len-minSize) that maximizes the
// energy statistic Q of ys[:t] against ys[t:], and its Q; 0 when ys is
// too short to split.
//
// Q = m n / (m+n) * (2/(m n) sum|x-y| - sum_{i<k}|x_i-x_k| / C(m,2) -
// sum_{j<k}|y_j-y_k| / C(n,2)), kept up to date as t moves by one, so a
// scan is O(len^2).
func split(ys []float64, minSize int) (int, float64) {
	n := len(ys)
	if n < 2*minSize {
		return 0, 0
	}
	d := func(i, j int) float64 { return math.Abs(ys[i] - ys[j]) }
	// with t = 1: X = ys[:1], Y = ys[1:]
	var within, cross, rest float64 // sums within X, X against Y, within Y
	for j := 1; j < n; j++ {
		cross += d(0, j)
		for k := j + 1; k < n; k++ {
			rest += d(j, k)
		}
	}
	bestT, bestQ := 0, math.Inf(-1)
	for t := 1; t <= n-minSize; t++ {
		if t >= minSize {
			m, k := float64(t), float64(n-t)
			e := 2*cross/(m*k) - within/(m*(m-1)/2) - rest/(k*(k-1)/2)
			if q := m * k / (m + k) * e; q > bestQ {
				bestT, bestQ = t, q
			}
		}
		// move ys[t] from Y to X
		var toX, toY float64
		for i := range t {
			toX += d(i, t)
		}
		for j := t + 1; j < n; j++ {
			toY += d(t, j)
		}
		within += toX
		rest -= toY
		cross += toY - toX
	}
	return bestT, bestQ
}
