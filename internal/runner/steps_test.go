package runner

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// stepWorkload is counterWorkload with a step (the op's statement) and a
// phase that another goroutine records.
type stepWorkload struct {
	counterWorkload
	phases atomic.Int64 // recorded, warm-up included
}

func (w *stepWorkload) Steps() []workload.Step {
	return []workload.Step{{Name: "bump/insert", Kind: result.KindStatement}, {Name: "bump/signal", Kind: result.KindPhase}}
}

type stepClient struct {
	workload.Client
	rec workload.StepRecorder
}

func (c *stepClient) RecordSteps(rec workload.StepRecorder) { c.rec = rec }

func (w *stepWorkload) NewClient(id int, rng *rand.Rand) workload.Client {
	c := &stepClient{}
	inner := w.counterWorkload.NewClient(id, rng)
	bump := inner.Ops()[0].Run
	c.Client = &counterClient{w: &w.counterWorkload, ops: []workload.Op{{Name: "bump", Run: func(ctx context.Context, conn target.Conn) error {
		t0 := time.Now()
		err := bump(ctx, conn)
		c.rec.RecordStep(0, time.Since(t0))
		done := make(chan struct{})
		go func() { // a phase ends on another goroutine
			c.rec.RecordStep(1, time.Since(t0))
			w.phases.Add(1)
			close(done)
		}()
		<-done
		return err
	}}}}
	return c
}

// TestStepsInTheWindow: a workload's steps are recorded by the runner in
// the measured window, warm-up excluded, as rows of their kinds after the
// runner's own; phases are in the intervals like ops, statements not.
func TestStepsInTheWindow(t *testing.T) {
	w := &stepWorkload{counterWorkload: counterWorkload{pause: 2 * time.Millisecond}}
	cfg := baseConfig()
	cfg.Clients = 2
	cfg.Warmup = 200 * time.Millisecond
	cfg.Duration = 200 * time.Millisecond
	out := mustRun(t, cfg, w)
	bump, insert, signal := op(t, out, "bump"), op(t, out, "bump/insert"), op(t, out, "bump/signal")
	if insert.Kind != result.KindStatement || signal.Kind != result.KindPhase {
		t.Errorf("kinds %q, %q; want statement, phase", insert.Kind, signal.Kind)
	}
	if bump.Count == 0 || insert.Count+insert.AfterWindow != bump.Count+bump.AfterWindow {
		t.Errorf("statement counted %d+%d, bump %d+%d: want the same", insert.Count, insert.AfterWindow, bump.Count, bump.AfterWindow)
	}
	if n := signal.Count + signal.AfterWindow; n == 0 || n >= w.phases.Load() {
		t.Errorf("phase counted %d of %d recorded: want the window's, without the warm-up's", n, w.phases.Load())
	}
	if names := []string{out.Ops[len(out.Ops)-2].Name, out.Ops[len(out.Ops)-1].Name}; names[0] != "bump/insert" || names[1] != "bump/signal" {
		t.Errorf("last rows %v, want the steps", names)
	}
	// the intervals carry the phase, of its kind, adding up to the totals;
	// a script's commands (statements) are in the totals only
	for _, iv := range out.Intervals {
		for _, o := range iv.Ops {
			if o.Kind == result.KindStatement {
				t.Errorf("interval has statement %s", o.Name)
			}
		}
	}
	for _, step := range []result.Op{signal} {
		var n int64
		for _, iv := range out.Intervals {
			for _, o := range iv.Ops {
				if o.Name == step.Name {
					if o.Kind != step.Kind {
						t.Errorf("interval's %s of kind %q, want %q", o.Name, o.Kind, step.Kind)
					}
					n += o.Count
				}
			}
		}
		if n != step.Count {
			t.Errorf("intervals count %d of %s, the run %d", n, step.Name, step.Count)
		}
	}
}

// bgStepWorkload records, on each bump, two transactions of a background
// worker as steps: one that started just now and one that started an hour
// ago, before the window.
type bgStepWorkload struct{ counterWorkload }

func (w *bgStepWorkload) Steps() []workload.Step {
	return []workload.Step{{Name: "claim", Kind: result.KindTxn}}
}

func (w *bgStepWorkload) NewClient(id int, rng *rand.Rand) workload.Client {
	c := &stepClient{}
	bump := w.counterWorkload.NewClient(id, rng).Ops()[0].Run
	c.Client = &counterClient{w: &w.counterWorkload, ops: []workload.Op{{Name: "bump", Run: func(ctx context.Context, conn target.Conn) error {
		err := bump(ctx, conn)
		c.rec.RecordStep(0, time.Millisecond)
		c.rec.RecordStep(0, time.Hour)
		return err
	}}}}
	return c
}

// TestBackgroundTxnStepCountsByItsStart: a transaction of a workload's
// background work (a step of kind txn) counts when it started in the
// window, whatever the cycle of the client whose recorder it used.
func TestBackgroundTxnStepCountsByItsStart(t *testing.T) {
	w := &bgStepWorkload{counterWorkload{pause: 2 * time.Millisecond}}
	cfg := baseConfig()
	cfg.Clients = 1
	cfg.Iterations = 5
	out := mustRun(t, cfg, w)
	if bump, claim := op(t, out, "bump"), op(t, out, "claim"); claim.Count+claim.AfterWindow != bump.Count+bump.AfterWindow || claim.Kind != result.KindTxn {
		t.Errorf("claim counted %d+%d (%s), bump %d+%d: want one per bump, the hour-old ones left out", claim.Count, claim.AfterWindow, claim.Kind, bump.Count, bump.AfterWindow)
	}
}
