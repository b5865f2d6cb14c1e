package study

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// drive runs a search to its end, measuring each repetition with measure
// (the value and the repetition, from 0): the ladder of values run, one
// entry per repetition.
func drive(t *testing.T, s *Search, measure func(v float64, rep int) *result.Result) []float64 {
	t.Helper()
	var runs []float64
	var last []*result.Result
	cur := -1.0
	for i := 0; i < 100; i++ {
		v, done, err := s.Next(last)
		if err != nil || done {
			return runs
		}
		if v != cur {
			last, cur = nil, v
		}
		last = append(last, measure(v, len(last)))
		runs = append(runs, v)
	}
	t.Fatal("the search never ended")
	return nil
}

// p99 is a result whose add op's p99 is ms.
func p99(ms float64) *result.Result { return res(10, ms, 1, true) }

func TestSearchBracketsThenBisects(t *testing.T) {
	g, _ := ParseSLO("add.p99<=50ms")
	s := &Search{Key: "rate", From: 10, Max: 1e5, Precision: 0.05, MinReps: 1, MaxReps: 3, MaxSteps: 20, Goals: []SLO{g}}
	// latency crosses 50 ms at rate 300 (HDR rounding may move it a little)
	runs := drive(t, s, func(v float64, _ int) *result.Result { return p99(v / 6) })
	if s.Best < 280 || s.Best > 300 || s.Missed <= s.Best || s.Missed > s.Best*1.05 || !strings.HasPrefix(s.Stop, "converged") {
		t.Errorf("best %g, missed %g, stop %q after %v", s.Best, s.Missed, s.Stop, runs)
	}
	if runs[0] != 10 || runs[1] != 20 || runs[5] != 320 || runs[6] != 160*1.5 {
		t.Errorf("ladder %v: want doubling 10..320, then bisection from 240", runs)
	}
}

// TestSearchRepeatsUntilAgreement: a step whose repetitions disagree is
// run again up to MaxReps, then counts as missed.
func TestSearchRepeatsUntilAgreement(t *testing.T) {
	g, _ := ParseSLO("add.p99<=50ms")
	s := &Search{Key: "clients", Integer: true, From: 1, Max: 8, Precision: 0.01, MinReps: 2, MaxReps: 4, MaxSteps: 20, Goals: []SLO{g}}
	runs := drive(t, s, func(v float64, rep int) *result.Result {
		if v == 4 && rep%2 == 1 { // 4 clients: met, missed, met, missed
			return p99(60)
		}
		return p99(10 * v)
	})
	st := s.Steps[2]
	if st.Value != 4 || len(st.Reps) != 4 || st.Met || st.Agreed {
		t.Errorf("step 3: %+v, want 4 disagreeing repetitions of 4 clients, missed", st)
	}
	if s.Best != 3 || s.Missed != 4 || !strings.HasPrefix(s.MissedGoal, "repetitions disagreed: add.p99<=50ms (measured") {
		t.Errorf("best %g, missed %g on %q (ladder %v)", s.Best, s.Missed, s.MissedGoal, runs)
	}
}

// TestSearchHalvesWhenTheFirstMisses and stops at the step bound.
func TestSearchHalvesAndStopsAtTheStepBound(t *testing.T) {
	g, _ := ParseSLO("add.p99<=5ms")
	s := &Search{Key: "rate", From: 100, Max: 1e5, Precision: 0.05, MinReps: 1, MaxReps: 1, MaxSteps: 3, Goals: []SLO{g}}
	runs := drive(t, s, func(v float64, _ int) *result.Result { return p99(v) })
	if len(runs) != 3 || runs[1] != 50 || runs[2] != 25 || s.Best != 0 || s.Missed != 25 || !strings.Contains(s.Stop, "step bound (3 steps)") {
		t.Errorf("ladder %v, best %g, missed %g, stop %q", runs, s.Best, s.Missed, s.Stop)
	}
}

// TestMeasureJSON: a measure of nothing (+Inf) saves as null and reads
// back; json.Marshal refuses a bare +Inf, which left capacity.json empty.
func TestMeasureJSON(t *testing.T) {
	rg := RepGoal{Measured: []Measure{Measure(math.Inf(1)), 2.5}}
	b, err := json.Marshal(rg)
	if err != nil || !strings.Contains(string(b), `"measured":[null,2.5]`) {
		t.Fatalf("%s %v", b, err)
	}
	var back RepGoal
	if err := json.Unmarshal(b, &back); err != nil || !math.IsInf(float64(back.Measured[0]), 1) || back.Measured[1] != 2.5 {
		t.Errorf("%+v %v", back, err)
	}
}

// scheduled is a result of a run at --rate rate for 10 s that completed
// done cycles per second (each fast), with the add op of each.
func scheduled(rate, done float64) *result.Result {
	r := res(int64(done*10), 1, 10, true)
	r.Config.Rate = rate
	h := r.Ops[1].Hist
	for i := int64(1); i < int64(done*10); i++ {
		h.Record(3 * time.Millisecond)
	}
	r.Ops[1].Summary = h.Summary()
	return r
}

// TestSearchMissesWhenBehindSchedule: a database that completes 17
// cycles/s whatever the rate meets cycle.p99<=1h at every rate when the
// cycles it never started count in no latency; a step whose schedule fell
// behind is missed, so the search brackets the 17/s it does. Before, it
// reported every rate up to the bound (100000) as met.
func TestSearchMissesWhenBehindSchedule(t *testing.T) {
	g, _ := ParseSLO("cycle.p99<=1h")
	s := &Search{Key: "rate", From: 10, Max: 1e5, Precision: 0.05, MinReps: 1, MaxReps: 1, MaxSteps: 20, Goals: []SLO{g}}
	runs := drive(t, s, func(v float64, _ int) *result.Result { return scheduled(v, min(v, 17)) })
	if s.Best < 10 || s.Best > 25 || s.Missed == 0 || s.Missed > 25 || !strings.HasPrefix(s.MissedGoal, "its schedule fell behind: ") || !strings.HasPrefix(s.Stop, "converged") {
		t.Errorf("best %g, missed %g on %q, stop %q after %v: want the search to end near 17/s", s.Best, s.Missed, s.MissedGoal, s.Stop, runs)
	}
}

// TestSearchStopsAtAStepThatMeasuredNothing: halving into rates where a
// step completes no operation ends the search there, saying why, instead
// of calling such steps missed and halving on to the bound.
func TestSearchStopsAtAStepThatMeasuredNothing(t *testing.T) {
	g, _ := ParseSLO("add.p99<=5ms")
	s := &Search{Key: "rate", From: 100, Max: 1e5, Precision: 0.05, MinReps: 2, MaxReps: 2, MaxSteps: 20, Goals: []SLO{g}}
	runs := drive(t, s, func(v float64, _ int) *result.Result {
		if v < 10 {
			r := res(0, 1, 10, true)
			r.Ops[1] = result.Op{Name: result.CycleOp, Kind: result.KindCycle}
			return r
		}
		return p99(50) // every step with operations misses
	})
	last := s.Steps[len(s.Steps)-1]
	if len(s.Steps) != 5 || last.Value != 6.25 || !last.Empty || len(last.Reps) != 1 || s.Best != 0 || s.Missed != 12.5 ||
		s.Stop != "rate 6.25 measured nothing (no operation completed or failed in its window), so no goal can be told: give a longer --duration, or a higher --from" {
		t.Errorf("ladder %v (last %+v), best %g, missed %g, stop %q", runs, last, s.Best, s.Missed, s.Stop)
	}
}

// TestSearchSaysHowSureNearTheBound: each step's decision on a goal
// carries the 95% interval of its measure, from the step's repetitions
// (or, run once, its run's intervals), and says when that interval holds
// the bound: 2 clients met add.p99<=50ms in each of three repetitions, at
// 44, 49 and 47 ms, which cannot tell it from 50 ms; 1 client (10 to
// 12 ms) and 3 clients (70 to 72 ms) are sure of their met and missed.
func TestSearchSaysHowSureNearTheBound(t *testing.T) {
	g, _ := ParseSLO("add.p99<=50ms")
	s := &Search{Key: "clients", Integer: true, From: 1, Max: 4, Precision: 0.01, MinReps: 3, MaxReps: 3, MaxSteps: 20, Goals: []SLO{g}}
	reps := map[float64][]float64{1: {10, 11, 12}, 2: {44, 49, 47}, 3: {70, 72, 71}, 4: {200, 210, 190}}
	drive(t, s, func(v float64, rep int) *result.Result { return p99(reps[v][rep]) })
	if s.Best != 2 || s.Missed != 3 {
		t.Fatalf("best %g, missed %g: want 2 and 3 (ladder %+v)", s.Best, s.Missed, s.Steps)
	}
	for _, st := range s.Steps {
		gs := st.Sure[0]
		if gs == nil || gs.From != "repetitions" || gs.Low > gs.High {
			t.Fatalf("step %g: how sure %+v, want an interval from its repetitions", st.Value, gs)
		}
		if want := st.Value == 2; gs.Near != want || (st.Near() == 0) != want {
			t.Errorf("step %g (p99 %v): near the bound %v (%.1f to %.1f ms), want %v", st.Value, reps[st.Value], gs.Near, gs.Low, gs.High, want)
		}
	}

	// Run once: the run's 1 s intervals give the spread. p99 by interval
	// 40 to 55 ms around a window's 48 ms is near 50 ms; 10 to 12 ms is not.
	once := func(window float64, byInterval ...float64) *result.Result {
		r := p99(window)
		for i, v := range byInterval {
			r.Intervals = append(r.Intervals, result.Interval{ElapsedS: float64(i + 1), LengthS: 1,
				Ops: []result.IntervalOp{{Name: "add", Summary: metrics.Summary{Count: 10, P99: v}}}})
		}
		return r
	}
	one := &Search{Key: "rate", From: 10, Max: 20, Precision: 0.05, MinReps: 1, MaxReps: 1, MaxSteps: 2, Goals: []SLO{g}}
	drive(t, one, func(v float64, _ int) *result.Result {
		if v == 10 {
			return once(11, 10, 11, 10, 12, 11, 10)
		}
		return once(48, 40, 55, 45, 52, 48, 42)
	})
	if len(one.Steps) != 2 {
		t.Fatalf("steps %+v", one.Steps)
	}
	for i, want := range []bool{false, true} {
		gs := one.Steps[i].Sure[0]
		if gs == nil || gs.From != "intervals" || gs.Near != want {
			t.Errorf("step %g run once: how sure %+v, want from its intervals, near the bound %v", one.Steps[i].Value, gs, want)
		}
	}
}
