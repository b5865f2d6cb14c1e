package telemetry

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestFinishSkipsSamplesOfAFrozenPooler: with the pooler stopped
// (SIGSTOP) each interval's sample waits out its console's deadline, so
// samples queue up; Finish takes those still queued without reading the
// consoles and leaves the stuck console out of the final reading, so it
// returns within about two deadlines (the sample under way, and slack)
// instead of one per queued sample (10 here: 30 s and more before), and
// every tick still has its sample (queued ones were dropped before: a
// series shorter than the run's intervals).
func TestFinishSkipsSamplesOfAFrozenPooler(t *testing.T) {
	ctx := context.Background()
	b := testutil.PgBouncer(t, testutil.Postgres(t), 0)
	w, err := pooler.Watch(pooler.Poolers{Members: []pooler.Member{b}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := Start(ctx, Options{Poolers: w})
	c.Measure()
	pid := b.PID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	for i := range 10 {
		c.Tick(float64(i) / 10)
		time.Sleep(100 * time.Millisecond)
	}
	start := time.Now()
	tel := c.Finish(ctx)
	took := time.Since(start)
	if limit := 2*pooler.ConsoleWait + 5*time.Second; took > limit {
		t.Errorf("Finish took %s, want at most %s", took, limit)
	}
	if notes := strings.Join(tel.Notes, "\n"); !strings.Contains(notes, "no answer to SHOW STATS within 3s") {
		t.Errorf("notes: %s", notes)
	}
	if len(tel.Series) != 10 {
		t.Fatalf("%d samples for 10 ticks", len(tel.Series))
	}
	if last := tel.Series[9]; !strings.Contains(last.Gap, sampleAtFinish) || last.ElapsedS != 0.9 {
		t.Errorf("the last sample, queued when the run finished: %+v", last)
	}
}
