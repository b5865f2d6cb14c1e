package workload

import (
	"context"
	"testing"
	"time"
)

// TestTimer: one timer serves wait after wait; a wait cut short by its
// context returns the context's error and leaves nothing behind for the
// next wait, which still lasts its full duration.
func TestTimer(t *testing.T) {
	var tm Timer
	ctx := context.Background()
	for range 3 {
		if err := tm.Sleep(ctx, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := tm.Sleep(cancelled, time.Hour); err != context.Canceled {
		t.Fatalf("cancelled wait: %v", err)
	}
	if err := tm.Sleep(cancelled, 0); err != context.Canceled {
		t.Fatalf("no wait, cancelled context: %v", err)
	}
	start := time.Now()
	if err := tm.Sleep(ctx, 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("wait after a cancelled one: %v after %s", err, time.Since(start))
	}
}
