package runner

import (
	"sort"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// slowKeep is how many of the slowest runs of each op are kept; the
// slowShown slowest are reported, and the other kept ones that are over
// the op's p99.9.
const (
	slowKeep  = 20
	slowShown = 5
)

// slowEntry is one kept op run.
type slowEntry struct {
	start  int64         // unix nanos
	lat    time.Duration // as recorded in the histogram
	pid    uint32        // the server session, 0 when unknown
	client int32
}

// slowHeap is a min-heap by latency of at most slowKeep entries: its
// root is the fastest kept, the one a slower run replaces.
type slowHeap []slowEntry

// add keeps e if it is among the slowKeep slowest. Only the comparison
// with the root runs for the common, fast op; the heap never grows past
// the capacity it was made with, so nothing is allocated.
func (h *slowHeap) add(e slowEntry) {
	s := *h
	if len(s) < slowKeep {
		s = append(s, e)
		for i := len(s) - 1; i > 0; { // sift up
			p := (i - 1) / 2
			if s[p].lat <= s[i].lat {
				break
			}
			s[p], s[i] = s[i], s[p]
			i = p
		}
		*h = s
		return
	}
	if e.lat <= s[0].lat {
		return
	}
	s[0] = e
	for i := 0; ; { // sift down
		m, l, r := i, 2*i+1, 2*i+2
		if l < len(s) && s[l].lat < s[m].lat {
			m = l
		}
		if r < len(s) && s[r].lat < s[m].lat {
			m = r
		}
		if m == i {
			return
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
}

// slowShard is the slowest runs of each op of one client, or in the
// worker mode of one worker's clients (a few shards that stay in cache
// rather than one per client): touched only by one goroutine at a time,
// so it needs no lock.
type slowShard struct {
	ops []slowHeap
	_   [64]byte // keep clients' shards on separate cache lines
}

// slowCycle is the session a client's current cycle's ops ran on, so a
// slow cycle can name it: 0 after ops on different sessions.
type slowCycle struct {
	pid uint32
	ops int
}

// slowest keeps the slowest runs of each op, per shard, merged at the
// end of the run. A nil one keeps nothing (Config.NoSlowOps).
type slowest struct{ shards []slowShard }

func newSlowest(ops, shards int) *slowest {
	s := &slowest{shards: make([]slowShard, shards)}
	for i := range s.shards {
		s.shards[i].ops = make([]slowHeap, ops)
		for j := range s.shards[i].ops {
			s.shards[i].ops[j] = make(slowHeap, 0, slowKeep)
		}
	}
	return s
}

// op notes in shard a successful, counted op of client, in its cycle cy,
// that ran on conn from from for lat.
func (s *slowest) op(shard int, cy *slowCycle, client, op int, from time.Time, lat time.Duration, conn target.Conn) {
	if s == nil {
		return
	}
	sh := &s.shards[shard]
	pid := target.BackendPID(conn)
	if cy.ops == 0 {
		cy.pid = pid
	} else if cy.pid != pid {
		cy.pid = 0
	}
	cy.ops++
	sh.ops[op].add(slowEntry{start: from.UnixNano(), lat: lat, pid: pid, client: int32(client)})
}

// endCycle notes in shard the end of a counted cycle cy of client (the
// cycle op's index is cycle), keeping it when it succeeded (err is nil).
func (s *slowest) endCycle(shard int, cy *slowCycle, client, cycle int, start time.Time, lat time.Duration, err error) {
	if s == nil {
		return
	}
	sh := &s.shards[shard]
	if err == nil {
		sh.ops[cycle].add(slowEntry{start: start.UnixNano(), lat: lat, pid: cy.pid, client: int32(client)})
	}
	*cy = slowCycle{}
}

// result merges the clients' runs: for each op (named by names, its
// histogram in hists), the slowShown slowest and the other kept ones over
// its p99.9, slowest first.
func (s *slowest) result(names []string, hists []*metrics.Hist) []result.SlowOp {
	if s == nil {
		return nil
	}
	var out []result.SlowOp
	for i, name := range names {
		var all []slowEntry
		for _, sh := range s.shards {
			all = append(all, sh.ops[i]...)
		}
		sort.Slice(all, func(a, b int) bool {
			if all[a].lat != all[b].lat {
				return all[a].lat > all[b].lat
			}
			return all[a].start < all[b].start
		})
		var p999 time.Duration
		if i < len(hists) && hists[i] != nil {
			p999 = hists[i].ValueAt(99.9)
		}
		for j, e := range all[:min(len(all), slowKeep)] {
			if j >= slowShown && e.lat <= p999 {
				break
			}
			out = append(out, result.SlowOp{Op: name, Client: int(e.client), Start: time.Unix(0, e.start).UTC(),
				LatencyMS: float64(e.lat) / float64(time.Millisecond), BackendPID: e.pid})
		}
	}
	return out
}
