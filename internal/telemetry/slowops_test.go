package telemetry

import (
	"github.com/txnbench/txnbench/internal/target"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// TestExplainSlowOp: an op of 3 s during which its session was seen in 25
// samples waiting on a row lock, 3 on CPU and 2 idle in transaction
// (another session's states, and samples before and after the op, do not
// count) is explained as 2.5 s on Lock:transactionid.
func TestExplainSlowOp(t *testing.T) {
	h := newWaitHistory()
	every := 100 * time.Millisecond
	t0 := time.Unix(1700000000, 0)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * every) }
	for i := 0; i < 5; i++ { // before the op: the session was busy
		h.add(at(i), "CPU=42 43")
	}
	for i := 5; i < 30; i++ {
		h.add(at(i), "Lock:transactionid=42,CPU=43")
	}
	for i := 30; i < 33; i++ {
		h.add(at(i), "CPU=42,Client:ClientRead (idle)=43")
	}
	for i := 33; i < 35; i++ {
		h.add(at(i), "Client:ClientRead (idle in transaction)=42 43")
	}
	for i := 35; i < 40; i++ { // after the op
		h.add(at(i), "Lock:transactionid=42")
	}
	c := &Collector{o: Options{Server: target.Spec{URL: "postgres://x"}, Sample: every}, history: h}
	ops := []result.SlowOp{{Op: "add", Start: at(5).Add(-time.Millisecond), LatencyMS: 3000, BackendPID: 42}}
	c.ExplainSlowOps(ops, false)
	o := ops[0]
	want := []result.SlowWait{{Event: "Lock:transactionid", Samples: 25, MS: 2500}, {Event: "CPU", Samples: 3, MS: 300}, {Event: "Client:ClientRead (idle in transaction)", Samples: 2, MS: 200}}
	if o.Samples != 30 || len(o.Waits) != len(want) || o.Note != "" {
		t.Fatalf("explained as %+v, want %d samples: %v", o, 30, want)
	}
	for i, w := range want {
		if o.Waits[i] != w {
			t.Errorf("wait %d is %+v, want %+v", i, o.Waits[i], w)
		}
	}
}

// TestExplainSlowOpsWithoutSession: pooled clients name no backend; a
// cycle on several sessions says so; an op with no sample inside it, or
// whose session was never seen, says why; SQLite ops (no pid, no server)
// keep only their times.
func TestExplainSlowOpsWithoutSession(t *testing.T) {
	h := newWaitHistory()
	t0 := time.Unix(1700000000, 0)
	h.add(t0, "CPU=1")
	h.add(t0.Add(time.Second), "CPU=1")
	c := &Collector{o: Options{Server: target.Spec{URL: "postgres://x"}, Sample: time.Second}, history: h}
	ops := []result.SlowOp{
		{Op: "cycle", Start: t0, LatencyMS: 2000},
		{Op: "add", Start: t0.Add(100 * time.Millisecond), LatencyMS: 500, BackendPID: 1},
		{Op: "add", Start: t0, LatencyMS: 2000, BackendPID: 2},
	}
	c.ExplainSlowOps(ops, false)
	if ops[0].Backend != BackendSeveral {
		t.Errorf("cycle on several sessions: %+v", ops[0])
	}
	if !strings.Contains(ops[1].Note, "no wait sample fell inside it") || ops[1].Waits != nil {
		t.Errorf("op between samples: %+v", ops[1])
	}
	if !strings.Contains(ops[2].Note, "not seen") || ops[2].Samples != 2 {
		t.Errorf("op of an unseen session: %+v", ops[2])
	}

	pooled := []result.SlowOp{{Op: "add", Start: t0, LatencyMS: 2000, BackendPID: 1}}
	c.ExplainSlowOps(pooled, true)
	if pooled[0].BackendPID != 0 || pooled[0].Backend != BackendPooled || pooled[0].Waits != nil {
		t.Errorf("pooled: %+v", pooled[0])
	}

	sqlite := []result.SlowOp{{Op: "add", Start: t0, LatencyMS: 2000}, {Op: "cycle", Start: t0, LatencyMS: 2000}}
	(&Collector{o: Options{Sample: time.Second}, history: newWaitHistory()}).ExplainSlowOps(sqlite, false)
	for _, o := range sqlite {
		if o.Backend != "" || o.Note != "" || o.Waits != nil {
			t.Errorf("SQLite op explained: %+v", o)
		}
	}

	off := []result.SlowOp{{Op: "add", Start: t0, LatencyMS: 2000, BackendPID: 1}}
	(*Collector)(nil).ExplainSlowOps(off, false)
	if !strings.Contains(off[0].Note, "telemetry is off") {
		t.Errorf("telemetry off: %+v", off[0])
	}
}

// TestWaitHistoryBounded: a long run keeps at most the bounds, drops the
// oldest samples first, and says so for an op older than what is kept;
// runs of one state compress.
func TestWaitHistoryBounded(t *testing.T) {
	h := newWaitHistory()
	t0 := time.Unix(1700000000, 0)
	every := time.Millisecond
	n := historyTicks + historyTicks/2
	for i := 0; i < n; i++ {
		h.add(t0.Add(time.Duration(i)*every), "Client:ClientRead (idle)=7,CPU=8,bad,=1,x=y z")
	}
	if len(h.times) > historyTicks || len(h.runs) > historyRuns || !h.trimmed {
		t.Fatalf("%d samples and %d runs kept (trimmed %v)", len(h.times), len(h.runs), h.trimmed)
	}
	if len(h.runs) != 2 {
		t.Errorf("%d runs for two sessions that never changed state", len(h.runs))
	}
	old := result.SlowOp{Op: "add", Start: t0, LatencyMS: 1, BackendPID: 7}
	h.explain(&old, every)
	if !strings.Contains(old.Note, "no longer kept") {
		t.Errorf("old op: %+v", old)
	}
	recent := result.SlowOp{Op: "add", Start: t0.Add(time.Duration(n-10) * every), LatencyMS: 100, BackendPID: 8}
	h.explain(&recent, every)
	if len(recent.Waits) != 1 || recent.Waits[0].Event != "CPU" || recent.Waits[0].Samples != 10 {
		t.Errorf("recent op: %+v", recent)
	}

	// Sessions changing state at every sample: the run bound holds.
	h = newWaitHistory()
	var list []string
	for p := 100; p < 164; p++ {
		list = append(list, strconv.Itoa(p))
	}
	pids := strings.Join(list, " ")
	for i := 0; i < historyRuns/64*2; i++ {
		ev := "CPU="
		if i%2 == 1 {
			ev = "IO:DataFileRead="
		}
		h.add(t0.Add(time.Duration(i)*every), ev+pids)
	}
	if len(h.runs) > historyRuns {
		t.Errorf("%d runs kept, bound %d", len(h.runs), historyRuns)
	}
}

// TestWaitHistoryAddDoesNotAllocate: once sessions and states are known,
// a sample that extends their runs allocates nothing but the time slot.
func TestWaitHistoryAddDoesNotAllocate(t *testing.T) {
	h := newWaitHistory()
	h.times = make([]int64, 0, 4096)
	now := time.Now()
	h.add(now, "Lock:relation=1 2 3,CPU=4")
	if n := testing.AllocsPerRun(1000, func() { h.add(now, "Lock:relation=1 2 3,CPU=4") }); n != 0 {
		t.Errorf("%g allocations per sample", n)
	}
}
