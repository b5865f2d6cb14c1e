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
var PgStat Sampler = &sampler{
	openWith: (*Collector).openPgStat, statements: statementsQuery, readWith: (*Collector).readPgStat,
	onExit: true, waits: true,
}

// Status reads a MySQL-protocol server's status variables and
// performance_schema's statement digests (mariadb.go); no wait samples.
// Its status variables count as statements end: none are published on
// exit.
var Status Sampler = &sampler{
	openWith: (*Collector).openStatus, statements: digestsQuery, readWith: (*Collector).readStatus,
}

// sampler is a Sampler by its parts: how it opens its session and reads
// the server's counters, its statements query (snapshotStatements), and
// whether it publishes on exit and samples waits.
type sampler struct {
	openWith      func(*Collector, context.Context) error
	statements    string
	readWith      func(*Collector, context.Context) (dbReading, int64, bool)
	onExit, waits bool
}

func (s *sampler) open(ctx context.Context, c *Collector) error { return s.openWith(c, ctx) }
func (s *sampler) snapshot(ctx context.Context, conn target.Conn, db string) (map[string]stmt, error) {
	return snapshotStatements(ctx, conn, s.statements, db)
}
func (s *sampler) read(ctx context.Context, c *Collector) (dbReading, int64, bool) {
	return s.readWith(c, ctx)
}
func (s *sampler) publishesOnExit() bool { return s.onExit }
func (s *sampler) samplesWaits() bool    { return s.waits }
