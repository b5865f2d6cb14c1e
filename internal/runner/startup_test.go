package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/workload"
)

// countingWorkload counts the clients the runner makes.
type countingWorkload struct {
	counterWorkload
	made atomic.Int64
}

func (w *countingWorkload) NewClient(id int, rng *rand.Rand) workload.Client {
	w.made.Add(1)
	return w.counterWorkload.NewClient(id, rng)
}

// TestInterruptStopsClientStartup: after Ctrl-C the runner starts no more
// clients, however many were asked for.
func TestInterruptStopsClientStartup(t *testing.T) {
	cfg := baseConfig()
	cfg.Clients, cfg.Duration = 50000, 1
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &countingWorkload{}
	out, err := Run(ctx, cfg, openSQLite(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || w.made.Load() != 0 {
		t.Errorf("interrupted before the start: %d of %d clients made (interrupted %v)", w.made.Load(), cfg.Clients, out.Interrupted)
	}
}

// TestAbsurdNumbersAreRefused: NaN and infinite rates passed validation
// and lost the result when it was saved; a rate finer than the schedule's
// nanosecond and progress lines every nanosecond only burn the client.
func TestAbsurdNumbersAreRefused(t *testing.T) {
	ok := Config{Clients: 1, Duration: 1, MaxTries: 1, Progress: time.Second}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Rate = 1e12 }, "--rate 1e+12 is more than one start per nanosecond"},
		{func(c *Config) { c.Progress = time.Nanosecond }, "--progress 1ns: give at least 10ms"},
	} {
		cfg := ok
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestRateMustBeFinite(t *testing.T) {
	for _, rate := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		c := Config{Clients: 1, Duration: 1, MaxTries: 1, Progress: time.Second, Rate: rate}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "give a finite number") {
			t.Errorf("--rate %g: got %v", rate, err)
		}
	}
}

func TestCheckMemoryNamesTheFlagsAndAmounts(t *testing.T) {
	cfg := Config{Clients: 100000}
	if err := checkMemory(cfg, &counterWorkload{}, "--clients 100000", 0); err != nil {
		t.Errorf("unknown machine memory: %v", err)
	}
	if err := checkMemory(Config{Clients: 8}, &counterWorkload{}, "--clients 8", 1<<30); err != nil {
		t.Errorf("8 clients in 1 GB: %v", err)
	}
	err := checkMemory(cfg, &counterWorkload{}, "--clients 100000", 1<<30)
	if err == nil || err.Error() != "--clients 100000 needs about 6.1 GB of memory, this machine has 1.0 GB: lower it" {
		t.Errorf("got %v", err)
	}
}
