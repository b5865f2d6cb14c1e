package runner

import (
	"context"
	"time"

	"github.com/txnbench/txnbench/internal/workload"
)

// Sleep waits for d or until ctx ends (then it returns ctx's error), for
// the runner's pacing (ramp-up, rate, cycle pauses, backoff) and a
// job's settling between runs. Workloads do not pace themselves.
func Sleep(ctx context.Context, d time.Duration) error {
	var t workload.Timer
	return t.Sleep(ctx, d)
}
