package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

func TestRateFollowsTheSchedule(t *testing.T) {
	w := &counterWorkload{}
	cfg := baseConfig()
	cfg.Rate = 200
	cfg.Duration = 2 * time.Second
	var mu sync.Mutex
	var late int
	cfg.OnCycle = func(e CycleEvent) {
		mu.Lock()
		defer mu.Unlock()
		if e.Lag < 0 || e.Latency < e.Lag {
			late++
		}
	}
	out := mustRun(t, cfg, w)
	n := op(t, out, result.CycleOp).Count
	// 400 expected; a Poisson count's sd is 20, so 300..500 is over 5 sd.
	if n < 300 || n > 500 {
		t.Errorf("%d cycles at 200/s for 2s, want about 400", n)
	}
	lag := op(t, out, result.LagOp)
	if lag.Kind != result.KindLag || lag.Count != n {
		t.Errorf("lag row %+v for %d cycles", lag.Summary, n)
	}
	if late > 0 {
		t.Errorf("%d events with negative lag or lag beyond latency", late)
	}
}

func TestLatencyLimitSkipsAndCountsLate(t *testing.T) {
	// One client taking 20 ms per cycle cannot keep up with 200/s: most
	// starts are already later than the 5 ms limit and are skipped, and the
	// ones that run take longer than it.
	w := &counterWorkload{opTime: 20 * time.Millisecond}
	cfg := baseConfig()
	cfg.Clients = 1
	cfg.Rate = 200
	cfg.LatencyLimit = 5 * time.Millisecond
	cfg.Duration = time.Second
	out := mustRun(t, cfg, w)
	c := op(t, out, result.CycleOp)
	if c.Skipped < 50 || c.Late < 1 || c.Late > c.Count+c.AfterWindow {
		t.Errorf("skipped %d, late %d of %d cycles: want many skipped and late", c.Skipped, c.Late, c.Count)
	}
}

func TestPerClientIterations(t *testing.T) {
	w := &counterWorkload{}
	cfg := baseConfig()
	cfg.Iterations, cfg.PerClient = 5, true
	counts := make([]int, cfg.Clients)
	var mu sync.Mutex
	cfg.OnCycle = func(e CycleEvent) { mu.Lock(); counts[e.Client]++; mu.Unlock() }
	out := mustRun(t, cfg, w)
	if got := op(t, out, result.CycleOp).Count; got != 20 {
		t.Errorf("%d cycles, want 4 clients x 5", got)
	}
	for i, n := range counts {
		if n != 5 {
			t.Errorf("client %d ran %d cycles, want 5", i, n)
		}
	}
}

// choosingWorkload runs one of two ops per cycle; op "bad" fails with err.
type choosingWorkload struct {
	counterWorkload
	err error
}

func (w *choosingWorkload) OpNames() []string { return []string{"good", "bad"} }

type choosingClient struct {
	rng   *rand.Rand
	ops   []workload.Op
	pause time.Duration
}

func (c *choosingClient) Choose() int              { return c.rng.IntN(2) }
func (c *choosingClient) NextCycle() time.Duration { return c.pause }
func (c *choosingClient) Ops() []workload.Op       { return c.ops }

func (w *choosingWorkload) NewClient(_ int, rng *rand.Rand) workload.Client {
	return &choosingClient{rng: rng, pause: w.pause, ops: []workload.Op{
		{Name: "good", Run: func(context.Context, target.Conn) error { return nil }},
		{Name: "bad", Run: func(context.Context, target.Conn) error { return w.err }},
	}}
}

func TestChooserRunsOneOpAndAbortsClients(t *testing.T) {
	abort := fmt.Errorf("division by zero: %w", workload.ErrAbortClient)
	for _, tc := range []struct {
		name         string
		err          error
		abortOnError bool
		wantAborted  int
	}{
		{"script error aborts", abort, false, 4},
		{"SQL error goes on", errors.New("syntax error"), false, 0},
		{"SQL error aborts with pgbench semantics", errors.New("syntax error"), true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &choosingWorkload{err: tc.err}
			cfg := baseConfig()
			cfg.Iterations, cfg.PerClient = 50, true
			cfg.AbortOnError = tc.abortOnError
			out := mustRun(t, cfg, w)
			if out.Aborted != tc.wantAborted {
				t.Errorf("%d clients aborted, want %d", out.Aborted, tc.wantAborted)
			}
			good, bad := op(t, out, "good"), op(t, out, "bad")
			if bad.ErrorCount() == 0 || (tc.wantAborted == 0 && good.Count+bad.ErrorCount() != 200) {
				t.Errorf("good %d, bad errors %d: want one op per cycle, 200 cycles", good.Count, bad.ErrorCount())
			}
			if tc.wantAborted > 0 && bad.ErrorCount() != int64(tc.wantAborted) {
				t.Errorf("bad failed %d times; each client should stop at its first", bad.ErrorCount())
			}
		})
	}
}

// TestChooserPauseNotInTheOp: a chosen op is timed after the cycle's
// pause, as the ops of a cycle without a Chooser are; the cycle has it.
func TestChooserPauseNotInTheOp(t *testing.T) {
	w := &choosingWorkload{}
	w.pause = 200 * time.Millisecond
	cfg := baseConfig()
	cfg.Iterations, cfg.PerClient = 5, true
	out := mustRun(t, cfg, w)
	for _, name := range []string{"good", "bad"} {
		// The ops do nothing: half the pause is a wide margin.
		if o := op(t, out, name); o.Count > 0 && o.P50 >= 100 {
			t.Errorf("%s p50 %.1f ms with a 200 ms pause: the pause is in the op", name, o.P50)
		}
	}
	if cycle := op(t, out, result.CycleOp); cycle.P50 < 200 {
		t.Errorf("cycle p50 %.1f ms: the 200 ms pause is not in the cycle", cycle.P50)
	}
}

func TestRateWithIterationsCountsEveryCycle(t *testing.T) {
	w := &counterWorkload{}
	cfg := baseConfig()
	cfg.Rate = 5000
	cfg.Iterations, cfg.PerClient = 5, true
	out := mustRun(t, cfg, w)
	if got := op(t, out, result.CycleOp).Count; got != 20 {
		t.Errorf("%d cycles counted, want 4 clients x 5: a scheduled start fell before the measured window", got)
	}
}
