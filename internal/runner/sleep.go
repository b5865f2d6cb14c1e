package runner

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx ends (then it returns ctx's error), for
// the runner's pacing (ramp-up, rate, cycle pauses, backoff) and a
// job's settling between runs. Workloads do not pace themselves.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
