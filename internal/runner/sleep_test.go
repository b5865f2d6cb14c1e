package runner

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	ctx := context.Background()
	for _, d := range []time.Duration{0, -time.Second} {
		if err := Sleep(ctx, d); err != nil {
			t.Errorf("Sleep(%v) = %v", d, err)
		}
	}
	start := time.Now()
	if err := Sleep(ctx, 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("Sleep(20ms) = %v after %v", err, time.Since(start))
	}
	cctx, cancel := context.WithCancel(ctx)
	go cancel() // while Sleep waits, or before it starts: either way it returns
	start = time.Now()
	if err := Sleep(cctx, time.Minute); !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("Sleep on a cancelled context = %v after %v", err, time.Since(start))
	}
}
