package result

import (
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/report/texttable"
)

// Behind is a run with a --rate whose schedule fell behind: it ran fewer
// cycles than the rate asked for, or started them later and later.
type Behind struct {
	RatePerS     float64 `json:"rate_per_s"`     // --rate
	AchievedPerS float64 `json:"achieved_per_s"` // cycles completed in the window per second
	// LagFirstMS and LagLastMS are the mean lag behind the schedule in
	// the first and the last interval that started cycles.
	LagFirstMS float64 `json:"lag_first_ms"`
	LagLastMS  float64 `json:"lag_last_ms"`
}

// BehindShare is the share of --rate under which a run's schedule counts
// as fallen behind.
const BehindShare = 0.95

// LagGrowthMS is how much the mean lag must grow from the first interval
// to the last for a schedule to count as fallen behind: a lag that grows
// means cycles queue up faster than the clients run them.
const LagGrowthMS = 100.0

// ScheduleBehind says whether r's schedule fell behind (nil: it kept up,
// or r had no --rate): its cycles in the window came to under BehindShare
// of the rate and under what the Poisson schedule itself may hand out (its
// count over the window has a standard deviation of the square root of
// the count expected: a 5 s window at 1.25 cycles/s expects 6.25 starts
// and may well schedule 3; the bound is 3 deviations under the expected
// count), or the mean lag grew by LagGrowthMS or more and at least doubled
// from its first interval to its last.
func ScheduleBehind(r *Result) *Behind {
	c := r.Op(CycleOp)
	if r.Config.Rate <= 0 || c == nil || r.MeasuredS <= 0 {
		return nil
	}
	b := &Behind{RatePerS: r.Config.Rate, AchievedPerS: float64(c.Count) / r.MeasuredS}
	first := true
	for _, iv := range r.Intervals {
		for _, o := range iv.Ops {
			if o.Name != LagOp || o.Count == 0 {
				continue
			}
			if first {
				b.LagFirstMS, first = o.Mean, false
			}
			b.LagLastMS = o.Mean
		}
	}
	growing := b.LagLastMS-b.LagFirstMS >= LagGrowthMS && b.LagLastMS >= 2*b.LagFirstMS
	expected := r.Config.Rate * r.MeasuredS
	bound := min(BehindShare*expected, expected-3*math.Sqrt(expected))
	if float64(c.Count) >= bound && !growing {
		return nil
	}
	return b
}

// FellBehind is r's Behind, worked out for a result saved before it was
// recorded: nil when r's schedule kept up or r had no --rate.
func (r *Result) FellBehind() *Behind {
	if r.Behind != nil {
		return r.Behind
	}
	return ScheduleBehind(r)
}

// Text says how far b fell behind, as the run's report and the study
// print it.
func (b *Behind) Text() string {
	return fmt.Sprintf("%s cycles/s of --rate %s (%.0f%%), mean lag %s ms in the first interval, %s ms in the last",
		texttable.Fixed(b.AchievedPerS, 1), texttable.Fixed(b.RatePerS, 1), 100*b.AchievedPerS/b.RatePerS, texttable.MS(b.LagFirstMS), texttable.MS(b.LagLastMS))
}
