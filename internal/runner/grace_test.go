package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/target"
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
func runWithin(t *testing.T, ctx context.Context, cfg Config, conns connect.Connector, w *counterWorkload, why string) *Outcome {
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
