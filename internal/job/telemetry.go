package job

import (
	"context"
	"fmt"
	"time"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// Telemetry is what is watched beside a run.
type Telemetry struct {
	Off    bool          // --telemetry off: nothing, and no session of its own
	Sample time.Duration // how often wait events are sampled; 0 = 100ms
}

// startTelemetry starts the collector for a run, before the run opens any
// session, or returns nil with --telemetry off. A throwaway server is
// readied for it first (temp-postgres: pg_stat_statements installed in
// the run database, which the server preloads).
func startTelemetry(ctx context.Context, s Spec, db *Database, poolers *pooler.Watcher) *telemetry.Collector {
	if s.Telemetry.Off {
		return nil
	}
	o := telemetry.Options{Sample: s.Telemetry.Sample, Poolers: poolers}
	var notes []string
	d := db.Dialect()
	switch u := db.serverSpec(s); {
	case d.Embedded:
	case !d.Caps.StatViews && !d.Caps.ServerStatus:
		notes = append(notes, fmt.Sprintf("no database telemetry: it reads PostgreSQL's statistics views or a MySQL-protocol server's status variables, and %s keeps neither alike", d.Name))
	case u.URL == "":
		notes = append(notes, "no database telemetry: the pooler URL given to --via is not the server; give the server's URL with --db too")
	default:
		o.Server, o.Sampler = u, db.engine.Sampler()
		if db.srv != nil && db.srv.PrepareTelemetry != nil {
			o.StatementsFix = db.srv.PrepareTelemetry(ctx)
		}
	}
	if o.Server.URL != "" {
		poolers.CloseServers(ctx) // the load's backends publish their statistics as they exit
		if s.Runner.Warmup > 0 {
			notes = append(notes, warmupNote)
		}
	}
	c := telemetry.Start(ctx, o)
	c.AddNotes(notes...)
	return c
}

// warmupNote says why, after a warm-up, the server's counters hold more
// than the window's transactions: its sessions are busy as the window opens.
const warmupNote = "the database counters include up to the last second of each session's warm-up (PostgreSQL publishes a busy session's counters at most once a second), so with --warmup the server's commits exceed the clients' transactions; the statement times do not lag"

// telemetryObserver is the collector as a runner observer: it takes its
// baseline as the window opens, one sample per progress interval (Tick
// never blocks the runner) and marks the window's end. The job finishes
// the collector itself once the sessions are closed.
type telemetryObserver struct{ c *telemetry.Collector }

func (t telemetryObserver) Start()                  { t.c.Measure() }
func (t telemetryObserver) Tick(iv result.Interval) { t.c.Tick(iv.ElapsedS) }
func (t telemetryObserver) WindowEnd()              { t.c.EndWindow() }
func (t telemetryObserver) Stop()                   {}
