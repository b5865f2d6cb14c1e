package result_test

import (
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// shardOf makes sample a shard of run id: index i of n, its window
// started at start (its host's clock) with the given skew.
func shardOf(t *testing.T, id string, i, n int, start time.Time, skewMS float64, checked bool) *result.Result {
	r := sample(t, 1, 2, true)
	r.Started, r.Ended = start, start.Add(65*time.Second)
	r.Shards = []result.Shard{{RunID: id, Index: i, Count: n, Host: "h", SkewMS: skewMS, Start: t0, Checked: checked}}
	if !checked {
		r.Invariants = &result.Check{NotChecked: "the last shard checks the run"}
	}
	return r
}

// TestMergeShards: shards of one run merge with their intervals lined up
// by wall time on the server's clock (skew applied), the whole run's
// check (the checking shard's), the shards listed in order; shards of
// different runs, a shard twice and shards beside whole runs are refused.
func TestMergeShards(t *testing.T) {
	a := shardOf(t, "run1", 1, 3, t0, 0, false)
	// shard 0's host clock is 30 s behind the server: its window opened
	// 30 s (one interval) after shard 1's.
	b := shardOf(t, "run1", 0, 3, t0, 30000, true)
	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Intervals) != 3 || m.Intervals[2].ElapsedS != 90 {
		t.Fatalf("intervals not lined up by wall time: %+v", m.Intervals)
	}
	count := func(iv result.Interval) int64 {
		for _, o := range iv.Ops {
			if o.Name == "add" {
				return o.Count
			}
		}
		return 0
	}
	if count(m.Intervals[0]) != 20 || count(m.Intervals[1]) != 40 || count(m.Intervals[2]) != 20 {
		t.Errorf("interval counts %d %d %d, want 20 40 20", count(m.Intervals[0]), count(m.Intervals[1]), count(m.Intervals[2]))
	}
	if m.Shards[0].Index != 0 || m.Shards[1].Index != 1 || m.Invariants.Status() != "OK" || len(m.Invariants.Items) != 2 {
		t.Errorf("shards %+v, check %+v", m.Shards, m.Invariants)
	}
	if got := m.MissingShards(); len(got) != 1 || got[0] != 2 {
		t.Errorf("missing %v, want [2]", got)
	}
	for _, c := range []struct {
		rs   []*result.Result
		want string
	}{
		{[]*result.Result{a, shardOf(t, "run2", 0, 3, t0, 0, true)}, "shards of different runs (run1 and run2)"},
		{[]*result.Result{a, shardOf(t, "run1", 1, 3, t0, 0, true)}, "shard 1 of run run1 is given twice"},
		{[]*result.Result{a, sample(t, 1, 2, true)}, "1 of the 2 results are shards"},
	} {
		if _, err := result.Merge(c.rs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge: %v, want %q", err, c.want)
		}
	}
	// No shard checked the run: the merge says how to.
	m, err = result.Merge([]*result.Result{a, shardOf(t, "run1", 0, 3, t0, 0, false)})
	if err != nil || !strings.Contains(m.Invariants.Status(), "txnbench check run1") {
		t.Errorf("unchecked merge: %v %s", err, m.Invariants.Status())
	}
}

// TestMergeShardFaults: each shard's faults are on the merged timeline,
// naming the shard whose clients' recovery they show, under the whole
// run's check; the merge kept only the first result's.
func TestMergeShardFaults(t *testing.T) {
	a := shardOf(t, "run1", 1, 2, t0, 0, false)
	b := shardOf(t, "run1", 0, 2, t0, 0, true)
	fault := func(at float64, errs int64) []result.Fault {
		return []result.Fault{{AtS: at, Kind: "reset", Target: "network", Injected: true,
			Recovery: &result.Recovery{Errors: map[string]int64{"connection_lost": errs}, Invariants: "not checked (shard 1 of 2)"}}}
	}
	a.Faults, b.Faults = fault(2, 3), fault(2.1, 5)
	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Faults) != 2 || m.Faults[0].Target != "network, shard 1" || m.Faults[1].Target != "network, shard 0" ||
		m.Faults[0].Recovery.Errors["connection_lost"] != 3 || m.Faults[0].Recovery.Invariants != "OK" {
		t.Errorf("merged faults %+v", m.Faults)
	}
	if a.Faults[0].Target != "network" || a.Faults[0].Recovery.Invariants != "not checked (shard 1 of 2)" {
		t.Errorf("the shard's own result changed: %+v", a.Faults[0])
	}
}

// TestMergedShardsKeepTheirRate: whether a merged run fell behind its
// schedule is judged again, on the whole run's rate and cycles, not taken
// from its first shard (which said 20/s and a shard's cycles).
func TestMergedShardsKeepTheirRate(t *testing.T) {
	shard := func(i int, cycles int64) *result.Result {
		r := shardOf(t, "run1", i, 2, t0, 0, i == 1)
		r.Config.Rate = 20
		c := r.Op(result.CycleOp)
		c.Hist = metrics.NewHist()
		for range cycles {
			c.Hist.Record(time.Millisecond)
		}
		c.Summary = c.Hist.Summary()
		r.Behind = result.ScheduleBehind(r)
		return r
	}
	for _, c := range []struct {
		cycles int64
		behind bool
	}{{int64(20 * 60), false}, {int64(5 * 60), true}} {
		a, b := shard(0, c.cycles), shard(1, c.cycles)
		m, err := result.Merge([]*result.Result{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if m.Config.Rate != 40 || (m.Behind != nil) != c.behind || (a.Behind != nil) != c.behind || m.Behind != nil && (m.Behind.RatePerS != 40 || m.Behind.AchievedPerS != 10) {
			t.Errorf("%d cycles per shard: merged rate %.0f behind %+v (a shard: %+v)", c.cycles, m.Config.Rate, m.Behind, a.Behind)
		}
	}
}
