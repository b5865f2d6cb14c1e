package diff

import (
	"fmt"
	"math"
	"slices"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/stats"
)

// The drift of a single run: how far its level may sit from another run's
// of the same setup for reasons the run's own intervals cannot show (the
// machine's other work, its caches, the scheduler), as a standard
// deviation of the logs: DriftQuiet on an idle machine, plus DriftBusy
// times the machine's busy share beside txnbench's own process (telemetry's
// machine CPU less the client's; the server's CPU is in it, which txnbench
// cannot tell apart). DriftQuiet is bench/spread.sh's run-to-run spread of
// throughput between identical runs on a quiet machine (changes up to 15%,
// a standard deviation about 5%); DriftBusy is set so that the A/A pairs
// recorded on a 2-core machine shared with six other sessions' builds and
// tests (testdata/aa-*: identical smoke-tier runs that moved by up to
// 0.49x) are all ~, while a planted change that doubles a transaction's
// time is not (docs/diff.md, "How sure").
const (
	DriftQuiet = 0.05
	DriftBusy  = 0.30
	// DriftUnknown is the busy share assumed of a run without CPU
	// telemetry: a busy machine, which a run cannot rule out.
	DriftUnknown = 1.0
	// TailDrift multiplies the drift of tail latencies (p95, p99): the
	// delays of a busy machine's scheduler land in the tail first (the
	// A/A pairs' p99 moved by up to 2.8x where their throughput moved by
	// 0.6x).
	TailDrift = 2.0
	// BusyFloorMS is how much a latency's floor grows on a busy machine,
	// times its busy share: a thread woken on a machine whose cores are
	// taken waits for one for up to a scheduler time slice (a few ms), so
	// a change of a sub-millisecond op's tail by that much is the
	// machine's (an A/A pair's select-only p99 moved from 0.20 to 1.18 ms).
	BusyFloorMS = 3.0
	// DriftLock widens the machine's part of the drift of two runs whose
	// sessions both queued on one another's locks, times the smaller of
	// their lock-wait shares (lockChain): such a run goes at the pace of
	// one lock holder at a time, a chain of its client's and backend's
	// wakeups that the run's clients do not average, so the scheduler's
	// delays move its level by more than its processes' run queue shows.
	// 2.5 is what makes identical tpcb-like runs (4 clients on one branch
	// row) that moved 4.8x on a saturated machine ~ while 8x is not
	// (TestLockChainStarvationIsNoRegression; docs/diff.md, "How sure").
	DriftLock = 2.5
)

// machineDrift is r's drift: DriftQuiet + DriftBusy x its machine's busy
// share beside txnbench (the median over the intervals); with no CPU
// telemetry, that of a busy machine when r has intervals to show its own
// noise, else 0: then its noise is unknown.
func machineDrift(r *result.Result) float64 {
	busy := DriftUnknown
	if len(r.Intervals) < 2 {
		busy = -1
	}
	if t := r.Telemetry; t != nil && len(t.Series) > 0 && r.Machine.CPUs > 0 {
		xs := make([]float64, 0, len(t.Series))
		for _, s := range t.Series {
			xs = append(xs, max(0, s.MachineCPU-s.ClientCPU/float64(r.Machine.CPUs)))
		}
		busy = min(stats.Median(xs), 1)
	}
	if busy < 0 {
		return 0
	}
	return DriftQuiet + DriftBusy*busy
}

// BusyShare is the busy share a run's drift was computed from, for the
// notes: machineDrift's inverse.
func BusyShare(drift float64) float64 { return (drift - DriftQuiet) / DriftBusy }

// rateSeries is the rate per second of the interval ops of r that count
// (summed) in each progress interval of r.
func rateSeries(r *result.Result, count func(result.IntervalOp) bool) []float64 {
	out := make([]float64, 0, len(r.Intervals))
	for _, iv := range r.Intervals {
		if iv.LengthS <= 0 {
			continue
		}
		var n int64
		for _, o := range iv.Ops {
			if count(o) {
				n += o.Count
			}
		}
		out = append(out, float64(n)/iv.LengthS)
	}
	return out
}

// latencySeries is a latency of op o in each progress interval where it
// completed.
func latencySeries(r *result.Result, o result.Op, of func(metrics.Summary) float64) []float64 {
	var out []float64
	for _, iv := range r.Intervals {
		for _, io := range iv.Ops {
			if io.Name == o.Name && io.Kind == o.Kind && io.Count > 0 {
				out = append(out, of(io.Summary))
			}
		}
	}
	return out
}

// sample is what a value knows of its noise: its run's intervals with a
// drift, or its repetitions (a unit of two or more) with their drift over
// the square root of their count. A comparison is as unsure as its busier
// side, so each side takes the larger of the two sides' drifts, its
// machine's part widened by the lock chain both sides ran in (chain:
// lockChain).
// Repetitions get one because they run back to back, minutes apart, and
// share their machine's and server's state (its cache, its background
// work, the other sessions of that minute): two of them agreeing by
// chance (one degree of freedom) says nothing of the next suite's, and a
// side's level may sit from another suite's by at least what separate
// runs' levels do, averaged over its repetitions (docs/diff.md, "How
// sure").
func (v value) sample(other value, chain float64) stats.Sample {
	d := max(v.drift, other.drift)
	if d > DriftQuiet {
		d = DriftQuiet + (d-DriftQuiet)*(1+DriftLock*chain)
	}
	if v.family == FamP95 || v.family == FamP99 {
		d *= TailDrift
	}
	if len(v.reps) > 1 {
		return stats.Sample{Values: v.reps, Drift: d / math.Sqrt(float64(len(v.reps)))}
	}
	return stats.Sample{Values: v.series, Series: true, Drift: d}
}

// busyFloor is a latency's floor for a comparison of b and n: the floor
// of an idle machine plus BusyFloorMS times the busier single run's busy
// share (repetitions show their own noise).
func busyFloor(b, n value) float64 {
	busy := 0.0
	for _, v := range []value{b, n} {
		if len(v.reps) < 2 && v.drift > 0 {
			busy = max(busy, BusyShare(v.drift))
		}
	}
	return math.Round((n.floor+BusyFloorMS*busy)*100) / 100
}

// basis says what a side's noise came from: "3 runs", "20 intervals".
func (v value) basis() string {
	if len(v.reps) > 1 {
		return fmt.Sprintf("%d runs", len(v.reps))
	}
	if v.drift == 0 {
		return fmt.Sprintf("%d intervals of 1 run", len(v.series))
	}
	return fmt.Sprintf("%d intervals of 1 run, machine %.0f%% busy beside it", len(v.series), 100*BusyShare(v.drift))
}

// statistical tells whether a family is decided with an interval of its
// samples' logs: all but error rates, compared as counts of events
// (stats.CompareCounts: an error rate of 0 has no logarithm), and the
// invariants, decided alone (a violation is never noise).
func statistical(f Family) bool { return f != FamErrors && f != FamInvariants }

// stretch is a unit's run-queue stretch (result.CPUUse.Stretch): the
// median of its runs', 0 when a run does not have it.
func stretch(u *Unit) float64 {
	xs := make([]float64, 0, len(u.Results))
	for _, r := range u.Results {
		s := r.CPU.Stretch()
		if s <= 0 {
			return 0
		}
		xs = append(xs, s)
	}
	return stats.Median(xs)
}

// machineBias is what the machine predicts of a metric's change from b
// to n, as the log of the ratio new/base: the log of the ratio of their
// run-queue stretches, for a latency or a cost (a side whose processes
// waited longer for a core per second of work is that much slower when
// bound by that work), its negative for a throughput. Repetitions that
// ran back to back share their machine, so their own spread cannot show
// it. A new lock, round trip or sleep waits off the run queue and does
// not stretch it, a heavier transaction is stretched as much as a light
// one, and a change against the prediction (the starved side was the
// faster) is not explained by it at all: those stay changes. The
// database's counters per transaction are in it too: the server's own
// work (the telemetry's queries, autovacuum) goes on per second, not per
// transaction, so a starved run's fewer transactions carry more of it
// (tup_returned per tpcb-like transaction moved 3x between identical runs
// whose stretches did). 0 when either side lacks the figure.
func machineBias(higherBetter bool, b, n *Unit) (bias, sb, sn float64) {
	sb, sn = stretch(b), stretch(n)
	if sb <= 0 || sn <= 0 {
		return 0, 0, 0
	}
	bias = math.Log(sn / sb)
	if higherBetter {
		bias = -bias
	}
	return bias, sb, sn
}

// lockShare is the share of r's sampled sessions in a transaction that
// waited on a heavyweight lock (telemetry's wait samples), 0 without them.
func lockShare(r *result.Result) float64 {
	if r.Telemetry == nil || r.Telemetry.Waits == nil || r.Telemetry.Waits.ActiveSamples <= 0 {
		return 0
	}
	w := r.Telemetry.Waits
	return float64(w.LockWaitSamples) / float64(w.ActiveSamples)
}

// lockChain is how much of both units' time their sessions queued on one
// another's locks: the smaller of the two units' lock-wait shares (the
// median of a unit's runs'). Both must show it for it to be the setup's
// and not the change's: a change that brings a new lock wait to one side
// is not widened by it.
func lockChain(b, n *Unit) (chain, lb, ln float64) {
	share := func(u *Unit) float64 {
		xs := make([]float64, len(u.Results))
		for i, r := range u.Results {
			xs[i] = lockShare(r)
		}
		return stats.Median(xs)
	}
	lb, ln = share(b), share(n)
	return min(lb, ln), lb, ln
}

// fewRate tells whether b and n are a throughput with too few samples on
// one side only: the rate fell (or rose) below diff's minimum of events,
// which is itself the change, so it is judged by the two counts
// (stats.CompareRates) rather than left out: a slowdown so large that a
// smoke run completed 5 transactions where it had completed 90 must fail
// the gate, not vanish into "too few samples".
func fewRate(b, n value) bool {
	return n.family == FamThroughput && (b.n < b.min) != (n.n < n.min)
}

// counted tells whether the throughputs b and n are judged by their counts
// (stats.CompareRates) rather than by their intervals: fewRate, or a side
// of a single run with an interval in which nothing completed. Such a
// run's intervals hold a handful of events each, so their rates show the
// counting's steps, not the run's noise, and the empty ones have no
// logarithm and drop out of the series: the rest look steadier than the
// count is (1 or 2 transactions an interval vary by 2x in a series that
// says nothing of the intervals with none), and a rate that is all
// startup in its first intervals (per-txn connects on a saturated machine:
// the first 0.8 s of a 4 s window with no transaction done) hides its
// head. The counts' Poisson noise holds both.
func counted(b, n value) bool {
	sparse := func(v value) bool { return len(v.reps) < 2 && slices.Contains(v.series, 0) }
	return fewRate(b, n) || n.family == FamThroughput && (sparse(b) || sparse(n))
}

// seconds is the window v's count was taken over (count over rate), the
// other side's when v counted nothing.
func seconds(v, other value) float64 {
	switch {
	case v.v > 0:
		return float64(v.n) / v.v
	case other.v > 0:
		return float64(other.n) / other.v
	}
	return 0
}
