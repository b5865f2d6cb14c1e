package fault

import (
	"context"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// baselineSpan is how far before a fault its baseline throughput is
// measured; recoverySpan is the span whose throughput must reach
// recoveredShare of it.
const (
	baselineSpan   = 10 * time.Second
	recoverySpan   = time.Second
	recoveredShare = 0.9
)

// Faults is the run's timeline of faults, each with what followed it,
// once every fault is over or ctx is done (Wait): a fault still going on
// then is noted UnderWay, with what followed it until the window ended.
// r is the run's result, with its invariant check.
func (s *Schedule) Faults(ctx context.Context, r *result.Result) []result.Fault {
	s.Wait(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]result.Fault, len(s.faults))
	copy(out, s.faults)
	now := time.Now().UnixNano()
	for i := range out { // injected, not over: what followed it until the window ended is measured
		if at := s.fired[i].Load(); at != 0 && !s.done[i] {
			out[i].AtS = seconds(at - s.t0.Load())
			out[i].LastedS = seconds(now - at)
			out[i].Note = UnderWay
		}
	}
	t0, end := s.t0.Load(), s.end.Load()
	if t0 == 0 || end == 0 {
		return out
	}
	var order []int // the injected faults in the order they came
	for i := range out {
		if s.fired[i].Load() != 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return s.fired[order[a]].Load() < s.fired[order[b]].Load() })
	prev := int64(0) // where the last fault's outage ended, ns since t0
	baseline := 0.0  // the last fault's baseline
	for k, i := range order {
		until := min(end-t0, s.horizon) // the next fault, the window's end, or as far as steps were counted
		if k+1 < len(order) {
			until = min(until, s.fired[order[k+1]].Load()-t0)
		}
		rec := s.recover(i, t0, until, prev, baseline)
		baseline = rec.BaselinePerS
		if r != nil {
			rec.Invariants = r.Invariants.Status()
			if len(order) == 1 && r.Invariants != nil {
				n := r.Invariants.UnknownCommits
				rec.UnknownCommits = &n
			}
		}
		prev = s.fired[i].Load() - t0 + int64(rec.OutageS*float64(time.Second))
		out[i].Recovery = rec
	}
	return out
}

// recover measures what followed fault i until the next fault or the
// window's end (until, ns since the window opened at t0, unix ns). prev
// is where the previous fault's outage ended (ns since t0), the earliest
// its baseline may start; with less than a second since then, the
// previous fault's baseline (prevBaseline) is this one's.
func (s *Schedule) recover(i int, t0, until, prev int64, prevBaseline float64) *result.Recovery {
	at := s.fired[i].Load() - t0 // ns since t0
	rec := &result.Recovery{}
	if ok := s.firstOK[i].Load(); ok != 0 {
		v := seconds(ok - t0 - at)
		rec.FirstOKS = &v
	}
	// the baseline: successful cycles per second before the fault
	from := max(prev, at-int64(baselineSpan))
	first, last := stepCeil(from), int(at/int64(step)) // whole steps in [from, at)
	switch {
	case last-first < int(recoverySpan/step) && prevBaseline > 0:
		rec.BaselinePerS = prevBaseline
		rec.Note = "throughput baseline: the fault before's (less than 1 s since its outage ended)"
	case last-first < int(recoverySpan/step) && prev > 0:
		rec.Note = "no throughput baseline: the fault before did not recover to one"
	case last-first < int(recoverySpan/step):
		rec.Note = "no throughput baseline: the fault came less than 1 s after the window opened"
	default:
		rec.BaselinePerS = math.Round(10*float64(s.sum(s.ok, first, last))/(float64(last-first)*step.Seconds())) / 10
	}
	back := int64(-1) // when the first second back at 90% began, ns after the fault
	if rec.BaselinePerS > 0 {
		need := recoveredShare * rec.BaselinePerS * recoverySpan.Seconds()
		span := int(recoverySpan / step)
		lastStart := int(until/int64(step)) - span // spans wholly before until
		from := stepCeil(at)
		if rec.FirstOKS != nil { // not before an op succeeded: a backlog's burst is no recovery
			from = max(from, int((at+int64(*rec.FirstOKS*float64(time.Second)))/int64(step)))
		}
		for b := from; b <= lastStart; b++ {
			if float64(s.sum(s.ok, b, b+span)) >= need {
				back = int64(b)*int64(step) - at
				v := seconds(back)
				if rec.FirstOKS != nil { // its step may begin before the first success
					v = max(v, *rec.FirstOKS)
				}
				rec.ThroughputS = &v
				break
			}
		}
		if rec.ThroughputS == nil {
			rec.Note = "throughput did not come back to 90% of the baseline before " + s.untilWhat(until, s.end.Load()-t0)
		}
	} else if rec.Note == "" {
		rec.Note = "no throughput baseline: no cycle succeeded in the 10 s before the fault"
	}
	// the outage: until the fault ended, an op succeeded and a second
	// was back at 90% throughput
	outage := int64(s.faults[i].LastedS * float64(time.Second))
	switch {
	case rec.FirstOKS == nil || (rec.ThroughputS == nil && rec.BaselinePerS > 0):
		outage = until - at
	default:
		outage = max(outage, int64(*rec.FirstOKS*float64(time.Second)))
		if back >= 0 { // to the end of the first second back
			outage = max(outage, back+int64(recoverySpan))
		}
	}
	outage = min(max(outage, 0), until-at)
	rec.OutageS = seconds(outage)
	for _, e := range s.errs {
		if e.at >= t0+at && e.at <= t0+at+outage {
			if rec.Errors == nil {
				rec.Errors = map[string]int64{}
			}
			rec.Errors[string(e.class)]++
		}
	}
	if s.connects {
		var n int64
		for _, o := range s.opened {
			if o >= t0+at && o <= t0+at+outage {
				n++
			}
		}
		rec.Reconnects = &n
	}
	return rec
}

// sum adds steps [from, to) of series.
func (s *Schedule) sum(series []atomic.Int64, from, to int) int64 {
	var n int64
	for b := max(from, 0); b < to && b < len(series); b++ {
		n += series[b].Load()
	}
	return n
}

// stepCeil is the first step starting at or after ns (since t0).
func stepCeil(ns int64) int {
	return int((ns + int64(step) - 1) / int64(step))
}

func seconds(ns int64) float64 {
	return float64(ns/int64(time.Millisecond)) / 1000
}

// untilWhat names what ended a fault's outage.
func (s *Schedule) untilWhat(until, window int64) string {
	switch {
	case until == s.horizon && until < window:
		return "an hour after the last fault (as far as it is followed)"
	case until < window:
		return "the next fault"
	}
	return "the window ended"
}
