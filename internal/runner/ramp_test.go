package runner

import (
	"context"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
)

// TestIterationsEndTheRamp: once every iteration is claimed, the clients
// still waiting for their ramp time end at once, in both modes: the run
// used to wait for the last one's ramp time, and its window (and ops/s)
// with it.
func TestIterationsEndTheRamp(t *testing.T) {
	inBothModes(t, func(t *testing.T, conns connect.Connector, workers int) {
		cfg := baseConfig()
		// client 1 would start 18 s in, the last one after an hour;
		// client 0 alone claims the 20 iterations
		cfg.Clients, cfg.Iterations, cfg.Ramp, cfg.workers = 200, 20, time.Hour, workers
		out := runWithin(t, context.Background(), cfg, conns, &counterWorkload{},
			"the run waits for its clients' ramp times after every iteration was claimed")
		if bump := op(t, out, "bump"); bump.Count != 20 {
			t.Errorf("%d ops, want the 20 iterations", bump.Count)
		}
		if out.Measured > 15*time.Second {
			t.Errorf("window %s: it waited for the ramp after the iterations were done", out.Measured)
		}
	})
}
