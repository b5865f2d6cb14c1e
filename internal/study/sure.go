package study

import (
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/stats"
)

// GoalSure is how sure a step's decision on one goal is: the 95% interval
// of the goal's measure at that step, from its repetitions (two or more)
// or, for a step run once, from the run's successive intervals (counted
// as fewer samples for their correlation, stats.Effective); Near says the
// interval holds the goal's bound, so met or missed could have gone the
// other way.
type GoalSure struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	From string  `json:"from"` // "repetitions" or "intervals"
	Near bool    `json:"near_bound,omitempty"`
}

// Text is the interval in the goal's unit, for the capacity table:
// "~ near the bound: 81.2ms to 117.9ms".
func (gs *GoalSure) Text(g SLO) string {
	return fmt.Sprintf("~ near the bound: %s to %s", g.Show(gs.Low), g.Show(gs.High))
}

// sure is how sure goal g's decision is at a step whose repetitions
// measured reps (one per run of runs); nil when it cannot be told (a
// measure that is not finite, a run without intervals).
func sure(g SLO, reps []RepGoal, k int, runs []*result.Result) *GoalSure {
	var vals []float64
	from, n := "repetitions", 0.0
	centre := 0.0
	if len(reps) >= 2 {
		for _, rg := range reps {
			vals = append(vals, float64(rg.Measured[k]))
		}
		n = float64(len(vals))
		centre = metrics.Median(vals)
	} else if len(reps) == 1 && len(runs) == 1 {
		from = "intervals"
		vals = intervalMeasures(g, runs[0])
		n = stats.Effective(vals)
		centre = float64(reps[0].Measured[k])
	}
	if len(vals) < 2 || n < 2 || math.IsInf(centre, 0) {
		return nil
	}
	// latencies vary by factors: their interval is taken on the logs;
	// counts and shares (errors, which are often 0) on the values
	logs := sloStats[g.Stat]
	var xs []float64
	for _, v := range vals {
		if math.IsInf(v, 0) || math.IsNaN(v) || logs && v <= 0 {
			return nil
		}
		if logs {
			v = math.Log(v)
		}
		xs = append(xs, v)
	}
	var m, ss float64
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	half := stats.TQuantile((1+stats.Level)/2, n-1) * math.Sqrt(ss/float64(len(xs)-1)/n)
	gs := &GoalSure{From: from}
	if logs {
		gs.Low, gs.High = centre*math.Exp(-half), centre*math.Exp(half)
	} else {
		gs.Low, gs.High = max(centre-half, 0), centre+half
	}
	gs.Near = gs.Low <= g.Value && g.Value <= gs.High
	return gs
}

// intervalMeasures is goal g's measure in each of r's intervals that has
// one: the op's latency statistic where it completed something, the
// share of transactions that failed, the op's count or rate.
func intervalMeasures(g SLO, r *result.Result) []float64 {
	var out []float64
	for _, iv := range r.Intervals {
		if g.Stat == "errors" {
			var ok, failed int64
			for _, o := range iv.Ops {
				if o.Kind.IsTxn() {
					ok, failed = ok+o.Count, failed+o.Errors
				}
			}
			switch {
			case ok+failed == 0:
			case g.Pct:
				out = append(out, 100*float64(failed)/float64(ok+failed))
			default:
				out = append(out, float64(failed)*r.MeasuredS/max(iv.LengthS, 1e-9)) // the window's count at this interval's pace
			}
			continue
		}
		for _, o := range iv.Ops {
			if o.Name != g.Op || iv.LengthS <= 0 {
				continue
			}
			switch g.Stat {
			case "count":
				out = append(out, float64(o.Count)*r.MeasuredS/iv.LengthS)
			case "rate":
				out = append(out, float64(o.Count)/iv.LengthS)
			default:
				if o.Count > 0 {
					out = append(out, latencyStat(g.Stat, o.Summary))
				}
			}
		}
	}
	return out
}
