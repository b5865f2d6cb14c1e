package job

import (
	"context"
	"fmt"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// Telemetry is what is watched beside a run.
type Telemetry struct {
	Off    bool          // --telemetry off: nothing, and no session of its own
	Sample time.Duration // how often wait events are sampled; 0 = 100ms
}

// startTelemetry starts the collector for a run, before the run opens any
// session, or returns nil with --telemetry off. On temp-postgres it installs pg_stat_statements in the
// run database first (the server preloads it).
func startTelemetry(ctx context.Context, s Spec, db *Database, poolers *pooler.Watcher) *telemetry.Collector {
	if s.Telemetry.Off {
		return nil
	}
	o := telemetry.Options{Sample: s.Telemetry.Sample, Poolers: poolers}
	var notes []string
	d := db.Dialect()
	switch u := db.serverURL(s); {
	case d.Embedded:
	case !d.Caps.StatViews && !d.Caps.ServerStatus:
		notes = append(notes, fmt.Sprintf("no database telemetry: it reads PostgreSQL's statistics views or a MySQL-protocol server's status variables, and %s keeps neither alike", d.Name))
	case u == "":
		notes = append(notes, "no database telemetry: the pooler URL given to --via is not the server; give the server's URL with --db too")
	default:
		o.ServerURL = u
		o.ServerStatus = !d.Caps.StatViews
		if db.cluster != nil {
			if err := createStatements(ctx, u); err != nil {
				o.StatementsFix = "no statement times: CREATE EXTENSION pg_stat_statements failed: " + errclass.FirstLine(err)
			} else {
				o.StatementsFix = "no statement times: pg_stat_statements is not preloaded by this server build (is the postgresql-contrib package installed?)"
			}
		}
	}
	if o.ServerURL != "" {
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

// createStatements installs pg_stat_statements in the throwaway cluster's
// run database.
func createStatements(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	t, err := target.OpenURL(ctx, url)
	if err != nil {
		return err
	}
	defer t.Close()
	c, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	return err
}

// telemetryObserver is the collector as a runner observer: it takes its
// baseline as the window opens, one sample per progress interval (Tick
// never blocks the runner) and marks the window's end. The job finishes
// the collector itself once the sessions are closed.
type telemetryObserver struct{ c *telemetry.Collector }

func (t telemetryObserver) Start()                  { t.c.Measure() }
func (t telemetryObserver) Tick(iv result.Interval) { t.c.Tick(iv.ElapsedS) }
func (t telemetryObserver) WindowEnd()              { t.c.EndWindow() }
func (t telemetryObserver) Stop()                   {}
