package telemetry

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
)

// Sampler is how the Collector reads one engine's server: its session,
// its counters, its statement times and whether it has wait samples.
// Each engine picks its own (internal/engine: Engine.Sampler), PgStat or
// Status, so that the Collector asks its Sampler, never which engine it
// watches.
type Sampler interface {
	// open opens c's session on the server and finds what it offers.
	open(ctx context.Context, c *Collector) error
	// snapshot reads the statement times of database db.
	snapshot(ctx context.Context, conn target.Conn, db string) (map[string]stmt, error)
	// read reads the database's counters and how many of the telemetry
	// session's own transactions they hold (see Collector.readDB).
	read(ctx context.Context, c *Collector) (dbReading, int64, bool)
	// publishesOnExit: a session's counters reach the server's as it
	// exits, so Start waits for the load's sessions to end.
	publishesOnExit() bool
	// samplesWaits: the server's sessions can be sampled for their waits.
	samplesWaits() bool
}

// PgStat reads PostgreSQL's statistics views (pgstat.go):
// pg_stat_database, pg_stat_statements, pg_stat_activity's wait events.
var PgStat Sampler = pgStat{}

// Status reads a MySQL-protocol server's status variables and
// performance_schema's statement digests (mariadb.go); no wait samples.
var Status Sampler = status{}

type pgStat struct{}

func (pgStat) open(ctx context.Context, c *Collector) error { return c.openPgStat(ctx) }
func (pgStat) snapshot(ctx context.Context, conn target.Conn, db string) (map[string]stmt, error) {
	return snapshotStatements(ctx, conn, db)
}
func (pgStat) read(ctx context.Context, c *Collector) (dbReading, int64, bool) {
	return c.readPgStat(ctx)
}
func (pgStat) publishesOnExit() bool { return true }
func (pgStat) samplesWaits() bool    { return true }

type status struct{}

func (status) open(ctx context.Context, c *Collector) error { return c.openStatus(ctx) }
func (status) snapshot(ctx context.Context, conn target.Conn, db string) (map[string]stmt, error) {
	return snapshotDigests(ctx, conn, db)
}
func (status) read(ctx context.Context, c *Collector) (dbReading, int64, bool) {
	return c.readStatus(ctx)
}
func (status) publishesOnExit() bool { return false } // status variables count as statements end
func (status) samplesWaits() bool    { return false }
