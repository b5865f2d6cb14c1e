package telemetry

import (
	"maps"
	"slices"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// Snapshot is the telemetry so far: the database's and the pooler's
// counters and their samples up to the last interval, the waits sampled
// so far; what only the end of the run reads (the statements, the final
// counters) is not in it yet. It waits for the sampler at most a second
// (nil then, as for a nil Collector): the live dashboard asks for it
// each interval and must not hold up.
func (c *Collector) Snapshot() *result.Telemetry {
	if c == nil {
		return nil
	}
	var t result.Telemetry
	r := request{kind: reqSnapshot, into: &t, reply: make(chan struct{})}
	select {
	case c.reqs <- r:
	case <-c.done:
		return nil
	case <-time.After(time.Second):
		return nil
	}
	select {
	case <-r.reply:
		return &t
	case <-c.done:
		return nil
	}
}

// snapshotInto copies the telemetry so far into t (the sampling goroutine's).
func (c *Collector) snapshotInto(t *result.Telemetry) {
	*t = c.tel
	t.Database, t.Pooler = maps.Clone(c.tel.Database), maps.Clone(c.tel.Pooler)
	t.Series, t.Notes = slices.Clone(c.tel.Series), slices.Clone(c.tel.Notes)
	if c.o.Server.URL != "" && c.waits.samples > 0 {
		t.Waits = c.waits.summary(float64(c.o.Sample) / float64(time.Millisecond))
	}
}
