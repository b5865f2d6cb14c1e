package telemetry

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
)

// A MySQL-protocol server (MariaDB, MySQL) keeps no pg_stat_database: its
// counters are the server's status variables (SHOW GLOBAL STATUS) and its
// statement times performance_schema's digests. This file reads them into
// the same names as PostgreSQL's, so a run's database section and
// statement table look alike on both.

// statusVars maps the status variables read to the positions of a
// dbReading. blks_hit is read requests less reads (InnoDB counts a read
// request whether or not it had to read the page).
var statusVars = map[string]int{
	"COM_COMMIT":                       0, // xact_commit: COMMIT statements
	"COM_ROLLBACK":                     1,
	"INNODB_BUFFER_POOL_READ_REQUESTS": 2,
	"INNODB_BUFFER_POOL_READS":         3,
	"HANDLER_WRITE":                    4, // rows of every engine's tables
	"HANDLER_UPDATE":                   5,
	"HANDLER_DELETE":                   6,
	"ROWS_READ":                        8, // tup_returned (MariaDB's)
	"INNODB_DEADLOCKS":                 9,
	"CREATED_TMP_DISK_TABLES":          10, // temp_files
	"INNODB_LSN_CURRENT":               walAt,
}

// statusQuery reads statusVars. SHOW GLOBAL STATUS, not
// information_schema.GLOBAL_STATUS: MySQL 8 has no such table (its
// performance_schema.global_status is MariaDB's since 10.5 only), and
// both servers answer SHOW alike.
var statusQuery = func() string {
	names := make([]string, 0, len(statusVars))
	for n := range statusVars {
		names = append(names, "'"+strings.ToLower(n)+"'")
	}
	return ownTag + "SHOW GLOBAL STATUS WHERE Variable_name IN (" + strings.Join(names, ", ") + ")"
}()

// readStatus is Status's read: the status variables, of which the
// telemetry session's own statements commit nothing.
func (c *Collector) readStatus(ctx context.Context) (dbReading, int64, bool) {
	var r dbReading
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if err := readStatus(qctx, c.conn, &r); err != nil {
		c.serverLost("reading the status variables", err)
		return r, 0, false
	}
	return r, 0, true
}

// readStatus reads the server's status variables into out. The server has
// no time of its last reset: a restart shows as counters going back.
func readStatus(ctx context.Context, c target.Conn, out *dbReading) error {
	rows, err := c.Query(ctx, statusQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	*out = dbReading{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("status variable %s = %q: %w", name, value, err)
		}
		out[statusVars[strings.ToUpper(name)]] = n
	}
	if err := rows.Err(); err != nil {
		return err
	}
	out[2] -= out[3] // hits: requests less reads
	return nil
}

// digestsQuery is performance_schema's statements of the run database by
// digest (snapshotStatements), time in milliseconds (the timers count
// picoseconds), the telemetry session's own left out: a digest's text
// keeps no comment, so they are known by the tables they read.
const digestsQuery = ownTag + `SELECT DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_ROWS_SENT + SUM_ROWS_AFFECTED, SUM_TIMER_WAIT / 1000000000
FROM performance_schema.events_statements_summary_by_digest
WHERE SCHEMA_NAME = $1 AND DIGEST IS NOT NULL
AND DIGEST_TEXT NOT LIKE '%events\_statements\_summary\_by\_digest%' AND DIGEST_TEXT NOT LIKE 'SHOW GLOBAL STATUS%'`

// openStatus opens the telemetry session on a MySQL-protocol server and
// finds out whether performance_schema times its statements.
func (c *Collector) openStatus(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*queryTimeout)
	defer cancel()
	t, err := target.Open(ctx, c.o.Server)
	if err != nil {
		return err
	}
	defer t.Close() // its sessions live on
	conn, err := t.Connect(ctx)
	if err != nil {
		return target.ConnectError(c.o.Server.URL, err)
	}
	var db string
	var ps int64
	if err := target.QueryRow(ctx, conn, ownTag+"SELECT DATABASE(), @@performance_schema", nil, &db, &ps); err != nil {
		conn.Close(ctx)
		return fmt.Errorf("reading the database name: %w", err)
	}
	reopened := c.db != ""
	c.db, c.conn = db, conn
	if reopened {
		return nil
	}
	c.note("database counters on %s are the server's status variables (SHOW GLOBAL STATUS), every database's: commits count COMMIT statements, not autocommitted ones; blks are InnoDB buffer pool pages, tuples the rows written, updated and deleted (Handler_write, _update, _delete) and read (Rows_read), wal_bytes the redo log's growth; no wait samples (performance_schema's waits are not sampled)", t.Dialect().Name)
	if ps == 0 {
		c.note("no statement times: performance_schema is off on this server: start it with --performance-schema=ON (temp-mariadb does)")
		return nil
	}
	if _, err := snapshotStatements(ctx, conn, digestsQuery, db); err != nil {
		c.note("no statement times: performance_schema's statement digests cannot be read: %s", errclass.FirstLine(err))
		return nil
	}
	c.stmts = true
	c.note("no server time per op: %s's statement digests keep no comment, so not the tag naming each statement's op; the statements are listed without their ops", t.Dialect().Name)
	return nil
}
