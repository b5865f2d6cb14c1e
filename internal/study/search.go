package study

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/txnbench/txnbench/internal/result"
)

// Search is a capacity search over one setting (rate, open loop, or
// clients, closed loop): it doubles the setting from From while every goal
// is met (bracketing), halves it while none is, then bisects between the
// highest value that met every goal and the lowest that missed one. Each
// step is repeated until its repetitions agree (all met or all missed) or
// MaxReps is hit; a step whose repetitions never agree counts as missed,
// and so does a repetition whose --rate schedule fell behind (the cycles
// it never started count in no latency). It stops when the bracket is
// within Precision, at Max, after MaxSteps, or at a step a repetition of
// which measured nothing (no op completed or failed: no goal can be told).
type Search struct {
	Key       string  `json:"by"`   // the setting searched: rate or clients
	From      float64 `json:"from"` // the first value
	Max       float64 `json:"max"`  // the highest value tried
	Integer   bool    `json:"integer,omitempty"`
	Precision float64 `json:"precision"` // stop when the bracket is within this share of its low end
	MinReps   int     `json:"min_repetitions"`
	MaxReps   int     `json:"max_repetitions"`
	MaxSteps  int     `json:"max_steps"`
	Goals     []SLO   `json:"goals"`

	Steps []SearchStep `json:"ladder"`
	// Best is the highest value that met every goal (0: none did), Missed
	// the lowest that missed one (0: none did).
	Best   float64 `json:"highest_met"`
	Missed float64 `json:"first_missed"`
	// MissedGoal is the goal the first missed step missed, and how.
	MissedGoal string `json:"missed_goal,omitempty"`
	// Stop says why the search ended.
	Stop string `json:"stopped"`
}

// SearchStep is one value of the ladder, in the order run.
type SearchStep struct {
	Value  float64   `json:"value"`
	Reps   []RepGoal `json:"repetitions"`
	Met    bool      `json:"met"`
	Agreed bool      `json:"agreed"`
	// Empty says a repetition measured nothing: the search ended there.
	Empty bool `json:"measured_nothing,omitempty"`
	// Sure is how sure the step's decision on each goal is, in the
	// goals' order (nil where it cannot be told): the measure's 95%
	// interval and whether it holds the bound.
	Sure []*GoalSure `json:"how_sure,omitempty"`
}

// Near is the first goal whose interval at the step holds its bound, or
// -1: the step's met or missed could have gone the other way.
func (st *SearchStep) Near() int {
	for k, gs := range st.Sure {
		if gs != nil && gs.Near {
			return k
		}
	}
	return -1
}

// RepGoal is how one repetition of a step did: every goal's measure,
// and the first goal it missed ("" when it met all), or that its
// schedule fell behind.
type RepGoal struct {
	Measured []Measure `json:"measured"` // per goal, in the goals' order
	Missed   string    `json:"missed,omitempty"`
	TxnPerS  float64   `json:"txn_per_s"`
	Empty    bool      `json:"measured_nothing,omitempty"` // no op completed or failed
}

// Value formats a value of the searched setting as its flag takes it.
func (s *Search) Value(v float64) string {
	if s.Integer {
		return strconv.Itoa(int(v))
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Next is given the results so far of the step being run (none before
// the first) and returns the value to run next: the same value for
// another repetition, a new one, or done. An error is a goal that cannot
// be measured (an op the workload does not have).
func (s *Search) Next(last []*result.Result) (v float64, done bool, err error) {
	if len(s.Steps) == 0 {
		return s.add(s.From), false, nil
	}
	st := &s.Steps[len(s.Steps)-1]
	st.Reps = st.Reps[:0]
	for _, r := range last {
		rg, err := s.judge(r)
		if err != nil {
			s.Stop = "a goal cannot be measured: " + err.Error()
			return 0, true, err
		}
		st.Reps = append(st.Reps, rg)
		if rg.Empty {
			st.Empty = true
			s.Stop = fmt.Sprintf("%s %s measured nothing (no operation completed or failed in its window), so no goal can be told: give a longer --duration, or a higher --from", s.Key, s.Value(st.Value))
			return 0, true, nil
		}
	}
	met, missed := 0, 0
	for _, rg := range st.Reps {
		if rg.Missed == "" {
			met++
		} else {
			missed++
		}
	}
	agree := met == 0 || missed == 0
	if len(st.Reps) < s.MinReps || !agree && len(st.Reps) < s.MaxReps {
		return st.Value, false, nil
	}
	st.Agreed, st.Met = agree, agree && missed == 0
	st.Sure = nil
	for k, g := range s.Goals {
		st.Sure = append(st.Sure, sure(g, st.Reps, k, last))
	}
	if st.Met {
		s.Best = st.Value
	} else if s.Missed == 0 || st.Value < s.Missed {
		s.Missed = st.Value
		s.MissedGoal = "repetitions disagreed: " + firstMiss(st.Reps)
		if agree {
			s.MissedGoal = firstMiss(st.Reps)
		}
	}
	next, stop := s.choose()
	if stop != "" {
		s.Stop = stop
		return 0, true, nil
	}
	if len(s.Steps) >= s.MaxSteps {
		s.Stop = fmt.Sprintf("the step bound (%d steps) was hit", s.MaxSteps)
		return 0, true, nil
	}
	return s.add(next), false, nil
}

// choose is the next value, or why the search is over.
func (s *Search) choose() (float64, string) {
	lo, hi := s.Best, s.Missed
	switch {
	case hi == 0: // every step met: double
		if lo >= s.Max {
			return 0, "every step met the goals up to the bound, " + s.Key + " " + s.Value(s.Max)
		}
		return s.round(min(2*lo, s.Max)), ""
	case lo == 0: // no step met: halve
		next := s.round(hi / 2)
		if next >= hi || next <= 0 || !s.Integer && next < s.From/1024 {
			return 0, "no " + s.Key + " tried met the goals"
		}
		return next, ""
	}
	if hi-lo <= math.Max(s.Precision*lo, 0) || s.Integer && hi-lo <= 1 {
		return 0, fmt.Sprintf("converged: %s met, %s missed", s.Value(lo), s.Value(hi))
	}
	next := s.round((lo + hi) / 2)
	if next <= lo || next >= hi {
		return 0, fmt.Sprintf("converged: %s met, %s missed", s.Value(lo), s.Value(hi))
	}
	return next, ""
}

// round makes v a value the setting takes: a whole number of clients, or a
// rate with three significant digits.
func (s *Search) round(v float64) float64 {
	if s.Integer {
		return math.Round(v)
	}
	if v <= 0 {
		return 0
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

func (s *Search) add(v float64) float64 {
	s.Steps = append(s.Steps, SearchStep{Value: v})
	return v
}

// judge measures every goal in r; a schedule that fell behind misses,
// whatever the goals.
func (s *Search) judge(r *result.Result) (RepGoal, error) {
	rg := RepGoal{TxnPerS: r.TxnPerS(), Empty: true}
	for _, o := range r.Ops {
		rg.Empty = rg.Empty && o.Count+o.ErrorCount() == 0
	}
	if b := r.FellBehind(); b != nil {
		rg.Missed = "its schedule fell behind: " + b.Text()
	}
	for _, g := range s.Goals {
		v, err := g.Measure(r)
		if err != nil {
			return rg, err
		}
		rg.Measured = append(rg.Measured, Measure(v))
		if !g.Met(v) && rg.Missed == "" {
			rg.Missed = fmt.Sprintf("%s (measured %s)", g.Text, g.Show(v))
		}
	}
	return rg, nil
}

// firstMiss is the first goal missed by a repetition.
func firstMiss(reps []RepGoal) string {
	for _, rg := range reps {
		if rg.Missed != "" {
			return rg.Missed
		}
	}
	return ""
}

// Measure is a goal's measure in a repetition; +Inf (a latency of an op
// that completed nothing) is saved as null, which JSON has for it.
type Measure float64

// MarshalJSON writes m, null for +Inf.
func (m Measure) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(m))
}

// UnmarshalJSON reads m, +Inf for null.
func (m *Measure) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = Measure(math.Inf(1))
		return nil
	}
	return json.Unmarshal(b, (*float64)(m))
}
