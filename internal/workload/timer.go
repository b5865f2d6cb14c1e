package workload

import (
	"context"
	"time"
)

// Timer is one goroutine's timer for its waits (a think time inside a
// transaction, the runner's pause before a cycle), reset for each wait
// rather than made anew with its channel each time. The zero value is
// ready; it is not safe for concurrent use.
type Timer struct{ t *time.Timer }

// Sleep waits for d or until ctx ends, then returns ctx's error.
func (t *Timer) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if t.t == nil {
		t.t = time.NewTimer(d)
	} else {
		t.t.Reset(d) // since Go 1.23 no stale tick can remain in t.C
	}
	select {
	case <-t.t.C:
		return nil
	case <-ctx.Done():
		t.t.Stop()
		return ctx.Err()
	}
}
