package target_test

import (
	"context"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPreparesAreNoTransactions: a session's transactions are the only
// ones the server counts for it (besides its login), also the first
// time it runs each statement, which pgx prepares in a round trip of its
// own; a statement run outside a transaction block is one transaction,
// also on a session that runs it once (--conn per-txn: it counted twice).
func TestPreparesAreNoTransactions(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	ctx := context.Background()
	obs := open(t, dbURL+"&default_query_exec_mode=simple_protocol")
	own := 0 // the observer's transactions, one per statement
	scan := func(q string) int64 {
		t.Helper()
		var n int64
		if err := target.QueryRow(ctx, obs, q, nil, &n); err != nil {
			t.Fatal(err)
		}
		own++
		return n
	}
	if _, err := obs.Exec(ctx, "CREATE TABLE t (v int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	own++
	// Commits published, less logins; the observer's own before it.
	commits := func() (int64, int) {
		scan("SELECT 1 FROM pg_stat_force_next_flush()")
		before := own
		return scan("SELECT xact_commit - sessions FROM pg_stat_database WHERE datname = current_database()"), before
	}
	// alone waits until the observer is the only session: sessions
	// publish their statistics as they exit.
	alone := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for scan("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()") > 0 {
			if time.Now().After(deadline) {
				t.Fatal("another session did not end")
			}
		}
	}
	tg, err := target.OpenURL(ctx, dbURL) // reads the version on a session of its own
	must(t, err)
	alone()
	base, own0 := commits()

	c, err := tg.Connect(ctx)
	must(t, err)
	defer c.Close(ctx)
	const n = 10
	for i := 0; i < n; i++ {
		must(t, c.Begin(ctx))
		if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1)", i); err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(ctx, "SELECT count(*) FROM t WHERE v <= $1", i)
		must(t, err)
		rows.Close()
		if i%2 == 0 {
			must(t, c.Commit(ctx))
		} else if _, err := c.ExecCommit(ctx, "UPDATE t SET v = v WHERE v = $1", i); err != nil {
			t.Fatal(err)
		}
		// outside a block: the first, second and later times
		rows, err = c.Query(ctx, "SELECT count(*) FROM t WHERE v >= $1", i)
		must(t, err)
		var k int64
		for rows.Next() {
			must(t, rows.Scan(&k))
		}
		rows.Close()
		must(t, rows.Err())
		if _, err := c.Exec(ctx, "DELETE FROM t WHERE v < $1", -1-i); err != nil {
			t.Fatal(err)
		}
		// a session of one transaction
		once, err := tg.Connect(ctx)
		must(t, err)
		rows, err = once.Query(ctx, "SELECT count(*) FROM t WHERE v <= $1", i)
		must(t, err)
		for rows.Next() {
			must(t, rows.Scan(&k))
		}
		rows.Close()
		must(t, rows.Err())
		if k != int64(i+1) {
			t.Errorf("count %d, want %d", k, i+1)
		}
		once.Close(ctx)
	}
	c.Close(ctx)
	alone()
	after, own1 := commits()
	if got := after - base - int64(own1-own0); got != 4*n {
		t.Errorf("the server counted %d commits for the sessions' %d transactions", got, 4*n)
	}
}

// open connects to url.
func open(t *testing.T, url string) target.Conn {
	t.Helper()
	_, c, done := testutil.Conn(t, url)
	t.Cleanup(done)
	return c
}
