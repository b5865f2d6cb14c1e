package runner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// inBothModes runs f with a goroutine per client (workers -1) and with
// the clients on a pool's workers (0: chosen for a pool smaller than the
// clients), over a pool of two connections.
func inBothModes(t *testing.T, f func(t *testing.T, conns connect.Connector, workers int)) {
	for _, tc := range []struct {
		name    string
		workers int
	}{{"goroutines", -1}, {"workers", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			f(t, openWith(t, connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}}), tc.workers)
		})
	}
}

// runWithin runs w and fails the test, saying why, when the run takes
// longer than a minute.
func runWithin(t *testing.T, ctx context.Context, cfg Config, conns connect.Connector, w workload.Workload, why string) *Outcome {
	t.Helper()
	done := make(chan *Outcome, 1)
	go func() {
		out, err := Run(ctx, cfg, conns, w)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	select {
	case out := <-done:
		return out
	case <-time.After(time.Minute):
		t.Fatal(why)
		return nil
	}
}

// TestInterruptDuringGrace: Ctrl-C after the window ended, while ops are
// still running in the grace period, cancels them at once, as it does
// mid-run, in both modes (it was ignored: the run waited out --grace).
func TestInterruptDuringGrace(t *testing.T) {
	inBothModes(t, func(t *testing.T, conns connect.Connector, workers int) {
		cfg := baseConfig()
		cfg.Clients, cfg.Duration, cfg.Grace, cfg.workers = 6, 100*time.Millisecond, time.Hour, workers
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cfg.OnPhase = func(msg string) {
			if strings.HasPrefix(msg, "duration reached") {
				time.AfterFunc(200*time.Millisecond, cancel) // in the grace period
			}
		}
		out := runWithin(t, ctx, cfg, conns, &counterWorkload{opTime: time.Hour},
			"Ctrl-C in the grace period did not end the run: it waits out the hour's grace")
		if bump := op(t, out, "bump"); !out.Interrupted || bump.Unfinished == 0 {
			t.Errorf("interrupted %v, %d ops unfinished; want interrupted, some unfinished", out.Interrupted, bump.Unfinished)
		}
	})
}

// TestNoTransactionBeginsAfterTheWindow: once the window closes, ops
// already running finish and none begins, in both modes: not a cycle's
// next op, not an op that was waiting for its turn at the pool (it
// began: every client queued for a connection ran its whole cycle after
// the window). The cycles cut short count unfinished. A fake clock closes
// the window once two clients are in their first op.
func TestNoTransactionBeginsAfterTheWindow(t *testing.T) {
	inBothModes(t, func(t *testing.T, conns connect.Connector, workers int) {
		var closed atomic.Bool
		var begun, after atomic.Int64
		w := &twoOpWorkload{counterWorkload{opTime: 2 * time.Second}}
		w.began = func() {
			begun.Add(1)
			if closed.Load() {
				after.Add(1)
			}
		}
		clock := &fakeClock{now: time.Now()}
		cfg := baseConfig()
		// 6 clients on 2 connections: 2 in their first op when the
		// window closes, 4 waiting for a connection
		cfg.Clients, cfg.Duration, cfg.Grace, cfg.workers, cfg.Clock = 6, time.Second, time.Hour, workers, clock
		cfg.Observers = []Observer{Funcs{OnWindowEnd: func() { closed.Store(true) }}}
		go func() {
			testutil.Poll(30*time.Second, time.Millisecond, func() bool { return begun.Load() == 2 && clock.pending() == 2 })
			clock.advance(time.Second)
		}()
		out := runWithin(t, context.Background(), cfg, conns, w, "the run did not end")
		bump, bump2, cycle := op(t, out, "bump"), op(t, out, "bump2"), op(t, out, result.CycleOp)
		if n := after.Load(); n != 0 {
			t.Errorf("%d ops began after the window closed", n)
		}
		if bump.Count+bump.AfterWindow != 2 || bump2.Count+bump2.AfterWindow != 0 || cycle.Unfinished != 2 {
			t.Errorf("bump %d+%d, bump2 %d+%d, cycles unfinished %d: want the 2 running bumps completed, no bump2, 2 cycles unfinished",
				bump.Count, bump.AfterWindow, bump2.Count, bump2.AfterWindow, cycle.Unfinished)
		}
	})
}
