package result

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Shard is one process's part of a run split across processes (txnbench
// run --shard I/N): which run and part, where it ran, and how its clock
// and start compared with the others'.
type Shard struct {
	RunID string `json:"run_id"`
	Index int    `json:"index"` // from 0
	Count int    `json:"count"`
	Host  string `json:"host"`
	// SkewMS is the database server's clock minus this host's, from the
	// fastest of a few round trips (their midpoint), RTTMS that round trip:
	// the skew is known to within half of it.
	SkewMS float64 `json:"skew_ms"`
	RTTMS  float64 `json:"rtt_ms"`
	// Start is the instant every shard started at, on the server's clock;
	// LateMS is how long after it this shard started (it saw the last
	// shard register too late to wait for it).
	Start  time.Time `json:"start"`
	LateMS float64   `json:"late_ms,omitempty"`
	// Checked says the shard's invariant check covers the whole run (it
	// finished last, or the workload's check needs no shard's books);
	// the other shards' checks say who checks it.
	Checked bool `json:"checked_run,omitempty"`
}

// sameRun refuses to merge results that are not the shards of one run:
// shards of different runs, a shard twice, or shards beside whole runs.
func sameRun(rs []*Result) error {
	sharded := 0
	for _, r := range rs {
		if len(r.Shards) > 0 {
			sharded++
		}
	}
	if sharded == 0 {
		return nil
	}
	if sharded < len(rs) {
		return fmt.Errorf("cannot merge: %d of the %d results are shards of a split run and the others are not; merge the shards of one run only", sharded, len(rs))
	}
	seen := map[int]bool{}
	first := rs[0].Shards[0]
	for _, r := range rs {
		for _, s := range r.Shards {
			if s.RunID != first.RunID {
				return fmt.Errorf("cannot merge: the results are shards of different runs (%s and %s); merge the shards of one run only", first.RunID, s.RunID)
			}
			if seen[s.Index] {
				return fmt.Errorf("cannot merge: shard %d of run %s is given twice; give each shard's result once", s.Index, s.RunID)
			}
			seen[s.Index] = true
		}
	}
	return nil
}

// mergeShards records the shards of merged results, in order, and the
// whole run's --iterations and --rate, which the shards split.
func mergeShards(m *Result, rs []*Result) {
	if len(rs[0].Shards) == 0 {
		return
	}
	m.Shards = nil
	m.Config.Iterations, m.Config.Rate = 0, 0
	for _, r := range rs {
		m.Shards = append(m.Shards, r.Shards...)
		m.Config.Iterations += r.Config.Iterations
		m.Config.Rate += r.Config.Rate
	}
	slices.SortFunc(m.Shards, func(a, b Shard) int { return a.Index - b.Index })
	m.Invariants = nil
	for _, r := range rs {
		if r.Invariants != nil && slices.ContainsFunc(r.Shards, func(s Shard) bool { return s.Checked }) {
			if m.Invariants == nil {
				m.Invariants = &Check{OK: true}
			}
			m.Invariants.Merge(*r.Invariants)
		}
	}
	if m.Invariants == nil {
		m.Invariants = &Check{NotChecked: "no shard checked the whole run: txnbench check " + rs[0].Shards[0].RunID}
	}
}

// mergeFaults puts every part's faults on the merged timeline, a shard's
// naming its shard: its recovery figures are what that part's clients
// saw (each part injects the faults it was given), under the merged
// check.
func mergeFaults(m *Result, rs []*Result) {
	m.Faults = nil
	for _, r := range rs {
		for _, f := range r.Faults {
			if len(r.Shards) == 1 {
				f.Target = strings.TrimPrefix(fmt.Sprintf("%s, shard %d", f.Target, r.Shards[0].Index), ", ")
			}
			if f.Recovery != nil {
				rec := *f.Recovery
				rec.Invariants = m.Invariants.Status()
				f.Recovery = &rec
			}
			m.Faults = append(m.Faults, f)
		}
	}
	slices.SortStableFunc(m.Faults, func(a, b Fault) int { return cmp.Compare(a.AtS, b.AtS) })
}

// MissingShards are the indexes of the run's shards that r does not hold.
func (r *Result) MissingShards() []int {
	if len(r.Shards) == 0 {
		return nil
	}
	have := map[int]bool{}
	for _, s := range r.Shards {
		have[s.Index] = true
	}
	var missing []int
	for i := range r.Shards[0].Count {
		if !have[i] {
			missing = append(missing, i)
		}
	}
	return missing
}

// windowStart is when r's measured window began, on the database server's
// clock for a shard (its own host's clock otherwise).
func (r *Result) windowStart() time.Time {
	t := r.Started
	if len(r.Shards) == 1 {
		t = t.Add(time.Duration(r.Shards[0].SkewMS * float64(time.Millisecond)))
	}
	return t
}

// intervalShifts lines up the results' intervals by wall time: interval i
// of rs[k] is interval i+shift[k] of the merge, the earliest result's
// intervals coming first. Results whose intervals differ in length
// (!same) are not lined up: all shifts are 0.
func intervalShifts(rs []*Result, same bool) []int {
	shifts := make([]int, len(rs))
	var length float64
	for _, r := range rs {
		if len(r.Intervals) > 0 {
			length = r.Intervals[0].LengthS
			break
		}
	}
	if !same || length <= 0 {
		return shifts
	}
	first := rs[0].windowStart()
	for _, r := range rs[1:] {
		if t := r.windowStart(); t.Before(first) {
			first = t
		}
	}
	for k, r := range rs {
		shifts[k] = int(math.Round(r.windowStart().Sub(first).Seconds() / length))
	}
	return shifts
}
