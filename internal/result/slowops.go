package result

import (
	"sort"
	"time"
)

// SlowOp is one of the run's slowest ops (the few slowest of each op, and
// those over its p99.9 among the kept ones): when it ran, on which server
// session, and what that session was doing meanwhile.
type SlowOp struct {
	Op        string    `json:"op"`
	Client    int       `json:"client"`
	Start     time.Time `json:"start"`
	LatencyMS float64   `json:"latency_ms"`
	// BackendPID is the server session that ran it (pg_backend_pid()); 0
	// when unknown: an embedded engine, a pooler between client and
	// server, or a cycle whose transactions ran on different sessions.
	BackendPID uint32 `json:"backend_pid,omitempty"`
	// Backend says why BackendPID is unknown, when it is.
	Backend string `json:"backend,omitempty"`
	// Waits is what the session was doing at the wait samples taken while
	// the op ran, longest first: a wait event ("Lock:transactionid"), CPU
	// (active, not waiting), or waiting for its client while idle
	// ("Client:ClientRead (idle in transaction)": the client's own think
	// time; "(idle)": between transactions). Each sample stands for one
	// sampling interval.
	Waits []SlowWait `json:"waits,omitempty"`
	// Samples is how many wait samples fell inside the op; Waits covers
	// those in which its session was seen.
	Samples int `json:"samples,omitempty"`
	// Note says why there are no waits, when there are none.
	Note string `json:"note,omitempty"`
}

// SlowWait is the time a slow op's session spent in one state.
type SlowWait struct {
	Event   string  `json:"event"`
	Samples int     `json:"samples"`
	MS      float64 `json:"ms"`
}

// mergedSlowOps is how many slow ops of each op a merged result keeps.
const mergedSlowOps = 20

// mergeSlowOps gathers the results' slow ops: each op's slowest first, at
// most mergedSlowOps of each. Client numbers are each run's own.
func mergeSlowOps(rs []*Result) []SlowOp {
	var all []SlowOp
	rank := map[string]int{} // ops in the order first seen
	for _, r := range rs {
		for _, o := range r.SlowOps {
			if _, ok := rank[o.Op]; !ok {
				rank[o.Op] = len(rank)
			}
			all = append(all, o)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if a, b := rank[all[i].Op], rank[all[j].Op]; a != b {
			return a < b
		}
		return all[i].LatencyMS > all[j].LatencyMS
	})
	out := all[:0]
	kept := map[string]int{}
	for _, o := range all {
		if kept[o.Op] < mergedSlowOps {
			kept[o.Op]++
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
