package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/target"
)

// pidConn is a Conn that only knows its backend pid.
type pidConn struct {
	target.Conn
	pid uint32
}

func (c pidConn) BackendPID() uint32 { return c.pid }

// TestSlowestKeepsTheSlowest: clients record concurrently into their own
// shards; the merge returns, per op, the slowShown slowest plus the kept
// ones over the op's p99.9, slowest first, each with its client and pid.
func TestSlowestKeepsTheSlowest(t *testing.T) {
	const clients, perClient = 8, 1000
	s := newSlowest(2, clients)
	cyc := make([]slowCycle, clients)
	hists := []*metrics.Hist{metrics.NewHist(), metrics.NewHist()}
	var mu sync.Mutex
	base := time.Unix(1700000000, 0)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn := pidConn{pid: uint32(100 + c)}
			for i := 0; i < perClient; i++ {
				// distinct latencies: client c's i-th op takes (i*clients+c+1) µs
				lat := time.Duration(i*clients+c+1) * time.Microsecond
				s.op(c, &cyc[c], c, 0, base.Add(time.Duration(i)*time.Millisecond), lat, conn)
				s.endCycle(c, &cyc[c], c, 1, base, lat, nil)
				mu.Lock()
				hists[0].Record(lat)
				hists[1].Record(lat)
				mu.Unlock()
			}
		}(c)
	}
	wg.Wait()
	for _, sh := range s.shards {
		for _, h := range sh.ops {
			if len(h) > slowKeep || cap(h) != slowKeep {
				t.Fatalf("a heap holds %d (capacity %d), bound %d", len(h), cap(h), slowKeep)
			}
		}
	}
	got := s.result([]string{"add", "cycle"}, hists)
	// 8,000 ops: p99.9 is about the 8th slowest, so the 5 slowest and
	// those over it (about 8) per op.
	var adds, cycles int
	prev := time.Duration(1 << 62)
	for _, o := range got {
		lat := time.Duration(o.LatencyMS * float64(time.Millisecond))
		switch o.Op {
		case "add":
			adds++
			want := time.Duration(clients*perClient-adds+1) * time.Microsecond
			if lat.Round(time.Microsecond) != want {
				t.Errorf("add #%d took %s, want %s", adds, lat, want)
			}
			if lat > prev {
				t.Errorf("not slowest first: %s after %s", lat, prev)
			}
			prev = lat
			wantClient := (clients*perClient - adds) % clients
			if o.Client != wantClient || o.BackendPID != uint32(100+wantClient) {
				t.Errorf("add #%d: client %d pid %d, want client %d pid %d", adds, o.Client, o.BackendPID, wantClient, 100+wantClient)
			}
		case "cycle":
			cycles++
			if o.BackendPID == 0 {
				t.Errorf("cycle of one session has no pid: %+v", o)
			}
		}
	}
	if adds < slowShown || adds > 12 || cycles != adds {
		t.Errorf("%d adds and %d cycles reported, want the same, %d to 12", adds, cycles, slowShown)
	}
}

// TestSlowestCycleOnSeveralSessions: a cycle whose ops ran on different
// sessions names none; a failed cycle is not kept and does not leak its
// sessions into the next.
func TestSlowestCycleOnSeveralSessions(t *testing.T) {
	s := newSlowest(2, 1)
	var cy slowCycle
	now := time.Now()
	s.op(0, &cy, 0, 0, now, time.Millisecond, pidConn{pid: 1})
	s.op(0, &cy, 0, 0, now, time.Millisecond, pidConn{pid: 2})
	s.endCycle(0, &cy, 0, 1, now, 3*time.Second, nil)
	s.op(0, &cy, 0, 0, now, time.Millisecond, pidConn{pid: 7})
	s.endCycle(0, &cy, 0, 1, now, 9*time.Second, context.Canceled)
	s.op(0, &cy, 0, 0, now, time.Millisecond, pidConn{pid: 3})
	s.endCycle(0, &cy, 0, 1, now, 2*time.Second, nil)
	var cycles []uint32
	for _, o := range s.result([]string{"op", "cycle"}, nil) {
		if o.Op == "cycle" {
			cycles = append(cycles, o.BackendPID)
		}
	}
	if len(cycles) != 2 || cycles[0] != 0 || cycles[1] != 3 {
		t.Errorf("cycle pids %v, want [0 3] (mixed sessions, then one)", cycles)
	}
}

// TestSlowestOpDoesNotAllocate: the hot path allocates nothing, full or
// not.
func TestSlowestOpDoesNotAllocate(t *testing.T) {
	s := newSlowest(1, 1)
	var cy slowCycle
	conn := target.Conn(pidConn{pid: 1})
	now := time.Now()
	var i time.Duration
	if n := testing.AllocsPerRun(1000, func() {
		i++
		s.op(0, &cy, 0, 0, now, i%50*time.Millisecond, conn)
		s.endCycle(0, &cy, 0, 0, now, i%70*time.Millisecond, nil)
	}); n != 0 {
		t.Errorf("%g allocations per op", n)
	}
}

// TestNoSlowOpsKeepsNone: a run with Config.NoSlowOps keeps no slowest
// runs (for `txnbench pgbench` without --json, which shows none), where
// the same run otherwise keeps its op's and cycle's.
func TestNoSlowOpsKeepsNone(t *testing.T) {
	for _, none := range []bool{false, true} {
		cfg := baseConfig()
		cfg.Iterations, cfg.NoSlowOps = 20, none
		out, err := Run(context.Background(), cfg, openSQLite(t), &counterWorkload{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(out.SlowOps) == 0; got != none {
			t.Errorf("NoSlowOps %v: slow ops %v", none, out.SlowOps)
		}
	}
}
