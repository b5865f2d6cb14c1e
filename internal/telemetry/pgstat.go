package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// dbCounters are the names of Telemetry.Database, in the order dbQuery
// returns them.
var dbCounters = []string{
	"xact_commit", "xact_rollback", "blks_hit", "blks_read",
	"tup_inserted", "tup_updated", "tup_deleted", "tup_fetched", "tup_returned",
	"deadlocks", "temp_files", "temp_bytes", "conflicts", "wal_bytes", "autovacuum",
}

// walCounter is the one counter that is not pg_stat_database's.
const walCounter = "wal_bytes"

// dbQuery reads the run database's counters, the WAL position (-1 on a
// standby, which has no current WAL position of its own), how many times
// autovacuum and autoanalyze processed the database's tables (each run
// commits transactions of its own, which xact_commit counts beside the
// clients'; 0 when the session is in another database, whose tables
// pg_stat_all_tables does not show), the sessions
// opened (PostgreSQL 14 and later; each one's login is a transaction in
// xact_commit) and when the statistics were last reset (microseconds).
func dbQuery(pgNum int) string {
	sessions := "0"
	if pgNum >= 140000 {
		sessions = "sessions"
	}
	return ownTag + `SELECT xact_commit, xact_rollback, blks_hit, blks_read,
  tup_inserted, tup_updated, tup_deleted, tup_fetched, tup_returned,
  deadlocks, temp_files, temp_bytes, conflicts,
  CASE WHEN pg_is_in_recovery() THEN -1 ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint END,
  CASE WHEN current_database() = $1 THEN (SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0)::bigint FROM pg_stat_all_tables) ELSE 0 END,
  ` + sessions + `, coalesce((extract(epoch from stats_reset) * 1e6)::bigint, 0)
FROM pg_stat_database WHERE datname = $1`
}

// dbReading is one reading of dbCounters, then sessionsAt and resetAt.
type dbReading [17]int64

// The readings past dbCounters.
const (
	walAt      = 13
	sessionsAt = 15
	resetAt    = 16
)

// wasReset says whether the statistics were reset between a and b: a
// server that crashed or was stopped immediately, or pg_stat_reset.
func (b *dbReading) wasReset(a *dbReading) bool {
	return b[resetAt] != a[resetAt] || b[0] < a[0] || b[sessionsAt] < a[sessionsAt]
}

func readDB(ctx context.Context, c target.Conn, pgNum int, db string, out *dbReading) error {
	o := out
	err := target.QueryRow(ctx, c, dbQuery(pgNum), []any{db}, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &o[16])
	if errors.Is(err, target.ErrNoRow) {
		return fmt.Errorf("pg_stat_database has no row for database %s", db)
	}
	return err
}

// delta is b - a by counter name; the WAL is left out when either reading
// had none.
func (b *dbReading) delta(a *dbReading) map[string]int64 {
	m := make(map[string]int64, len(dbCounters))
	for i, name := range dbCounters {
		if name == walCounter && (a[i] < 0 || b[i] < 0) {
			continue
		}
		m[name] = b[i] - a[i]
	}
	return m
}

// otherBackendsQuery counts the run database's client sessions other than
// the telemetry session.
const otherBackendsQuery = ownTag + `SELECT count(*) FROM pg_stat_activity
WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`

// hasStatementsQuery: is pg_stat_statements installed in this database
// (its view exists only where CREATE EXTENSION ran)?
const hasStatementsQuery = ownTag + `SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'`

// statementsQuery is the run database's statements, but the telemetry
// session's own. Time is total_exec_time (PostgreSQL 13 and later).
const statementsQuery = ownTag + `SELECT s.queryid::text, s.query, s.calls, s.rows, s.total_exec_time
FROM pg_stat_statements AS s JOIN pg_database AS d ON d.oid = s.dbid
WHERE d.datname = $1 AND s.query NOT LIKE '/* txnbench telemetry */%'`

// stmt is one statement in a pg_stat_statements snapshot.
type stmt struct {
	query       string
	calls, rows int64
	totalMS     float64
}

// snapshotStatements reads query, statementsQuery or digestsQuery (id,
// text, calls, rows, total ms of the statements of database db), by id:
// entries of one id (a queryid under several users) add up.
func snapshotStatements(ctx context.Context, c target.Conn, query, db string) (map[string]stmt, error) {
	rows, err := c.Query(ctx, query, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]stmt{}
	for rows.Next() {
		var id string
		var s stmt
		if err := rows.Scan(&id, &s.query, &s.calls, &s.rows, &s.totalMS); err != nil {
			return nil, err
		}
		if t, ok := out[id]; ok {
			s.calls += t.calls
			s.rows += t.rows
			s.totalMS += t.totalMS
			s.query = t.query
		}
		out[id] = s
	}
	return out, rows.Err()
}

// statementDeltas is what ran between two snapshots, slowest in total
// first, each with the op its tag names.
func statementDeltas(before, after map[string]stmt) []result.Statement {
	var out []result.Statement
	for id, a := range after {
		b := before[id]
		calls := a.calls - b.calls
		if calls <= 0 {
			continue
		}
		op, _ := ParseOpTag(a.query)
		s := result.Statement{Op: op, Query: a.query, Calls: calls, Rows: a.rows - b.rows, TotalMS: a.totalMS - b.totalMS}
		s.MeanMS = s.TotalMS / float64(calls)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TotalMS != out[j].TotalMS {
			return out[i].TotalMS > out[j].TotalMS
		}
		return out[i].Query < out[j].Query
	})
	return out
}

// untaggedNote is the note for statements none of which names its op
// on PostgreSQL 18 and later, whose pg_stat_statements keeps a normalised
// query's text without its leading comment (the op tag), or "".
func untaggedNote(pgNum int, st []result.Statement) string {
	if pgNum < 180000 || len(st) == 0 {
		return ""
	}
	for _, s := range st {
		if s.Op != "" {
			return ""
		}
	}
	return "no server time per op: PostgreSQL 18's pg_stat_statements keeps query texts without the leading comment that names each statement's op (" + tagPrefix + "NAME */), so the statements are listed without their ops (the telemetry session's own among them)"
}

// subtract is b - a by key.
func subtract(b, a map[string]int64) map[string]int64 {
	if b == nil {
		return nil
	}
	out := make(map[string]int64, len(b))
	for k, v := range b {
		out[k] = v - a[k]
	}
	return out
}
