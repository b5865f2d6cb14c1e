package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/target"
)

// TestInterruptDuringGrace: Ctrl-C after the window ended, while ops are
// still running in the grace period, cancels them at once, as it does
// mid-run, in both modes (it was ignored: the run waited out --grace).
func TestInterruptDuringGrace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
	}{{"goroutines", -1}, {"workers", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			conns := openWith(t, connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}})
			cfg := baseConfig()
			cfg.Clients, cfg.Duration, cfg.Grace, cfg.workers = 6, 100*time.Millisecond, time.Hour, tc.workers
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg.OnPhase = func(msg string) {
				if strings.HasPrefix(msg, "duration reached") {
					time.AfterFunc(200*time.Millisecond, cancel) // in the grace period
				}
			}
			done := make(chan *Outcome, 1)
			go func() {
				out, err := Run(ctx, cfg, conns, &counterWorkload{opTime: time.Hour})
				if err != nil {
					t.Error(err)
				}
				done <- out
			}()
			select {
			case out := <-done:
				if bump := op(t, out, "bump"); !out.Interrupted || bump.Unfinished == 0 {
					t.Errorf("interrupted %v, %d ops unfinished; want interrupted, some unfinished", out.Interrupted, bump.Unfinished)
				}
			case <-time.After(time.Minute):
				t.Fatal("Ctrl-C in the grace period did not end the run: it waits out the hour's grace")
			}
		})
	}
}
