package result

import "testing"

// TestScheduleBehind: a run under 95% of its --rate, beyond what the
// Poisson schedule itself may hand out, or whose lag grew, fell behind;
// one that kept up, or had no rate, did not.
func TestScheduleBehind(t *testing.T) {
	run := func(rate float64, cycles int64, lags ...float64) *Result {
		r := &Result{Config: Config{Rate: rate}, MeasuredS: 10, Ops: []Op{{Name: CycleOp, Kind: KindCycle}}}
		r.Ops[0].Count = cycles
		for _, l := range lags {
			iv := Interval{Ops: []IntervalOp{{Name: LagOp}}}
			iv.Ops[0].Count, iv.Ops[0].Mean = 5, l
			r.Intervals = append(r.Intervals, iv)
		}
		return r
	}
	for _, c := range []struct {
		name   string
		r      *Result
		behind bool
	}{
		{"kept up", run(40, 400, 2, 3, 2), false},
		{"no rate", run(0, 110), false},
		{"11 of 40 cycles/s", run(40, 110, 12000, 16000), true},
		{"96% and a steady lag", run(40, 384, 50, 60), false},
		{"the rate but a growing lag", run(40, 400, 5, 40, 400), true},
		{"a lag growing by less than 100 ms", run(40, 400, 5, 60), false},
		// A recipe's capacity step at 1.25 cycles/s over 5 s completed 3
		// cycles with a lag under 1 ms: the Poisson schedule had handed out
		// 3 starts, not fallen behind (6.25 expected, sd 2.5).
		{"3 of 6.25 expected, no lag", func() *Result { r := run(1.25, 3, 0.7, 0.6); r.MeasuredS = 5; return r }(), false},
		{"96 of 400 expected over 10 s", run(40, 96, 1, 1), true},
		{"339 of 400 (over 3 sd under)", run(40, 339, 1, 1), true},
	} {
		b := ScheduleBehind(c.r)
		if (b != nil) != c.behind {
			t.Errorf("%s: behind %+v, want %v", c.name, b, c.behind)
		}
		if b != nil && (b.RatePerS != c.r.Config.Rate || b.AchievedPerS != float64(c.r.Ops[0].Count)/c.r.MeasuredS) {
			t.Errorf("%s: %+v", c.name, b)
		}
	}
}
