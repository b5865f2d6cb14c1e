package runner

import (
	"context"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/target"
)

// TestIterationsEndTheRamp: once every iteration is claimed, the clients
// still waiting for their ramp time end at once, in both modes: the run
// used to wait for the last one's ramp time, and its window (and ops/s)
// with it.
func TestIterationsEndTheRamp(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
	}{{"goroutines", -1}, {"workers", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			conns := openWith(t, connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}})
			cfg := baseConfig()
			// client 1 would start 18 s in, the last one after an hour;
			// client 0 alone claims the 20 iterations
			cfg.Clients, cfg.Iterations, cfg.Ramp, cfg.workers = 200, 20, time.Hour, tc.workers
			done := make(chan *Outcome, 1)
			go func() {
				out, err := Run(context.Background(), cfg, conns, &counterWorkload{})
				if err != nil {
					t.Error(err)
				}
				done <- out
			}()
			select {
			case out := <-done:
				if bump := op(t, out, "bump"); bump.Count != 20 {
					t.Errorf("%d ops, want the 20 iterations", bump.Count)
				}
				if out.Measured > 15*time.Second {
					t.Errorf("window %s: it waited for the ramp after the iterations were done", out.Measured)
				}
			case <-time.After(time.Minute):
				t.Fatal("the run waits for its clients' ramp times after every iteration was claimed")
			}
		})
	}
}
