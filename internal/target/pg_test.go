package target_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

func pgConn(t *testing.T) (target.Target, target.Conn) {
	t.Helper()
	tg, c, done := testutil.Conn(t, testutil.SharedPostgres(t))
	t.Cleanup(done)
	if _, err := c.Exec(context.Background(), "CREATE TABLE t (v int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return tg, c
}

func count(t *testing.T, c target.Conn) int64 {
	t.Helper()
	var n int64
	if err := target.QueryRow(context.Background(), c, "SELECT count(*) FROM t", nil, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPipelinedTransactions: BEGIN travels with the first statement and
// ExecCommit sends the last statement with COMMIT; the semantics are those
// of plain transactions.
func TestPipelinedTransactions(t *testing.T) {
	tg, c := pgConn(t)
	ctx := context.Background()
	if d := tg.Dialect(); d.Name != "PostgreSQL" || !d.Caps.SkipLocked || d.Embedded {
		t.Errorf("dialect %+v", d)
	}

	// Begin, statement, rollback: nothing stays.
	must(t, c.Begin(ctx))
	if n, err := c.Exec(ctx, "INSERT INTO t VALUES (1), (2)"); err != nil || n != 2 {
		t.Fatalf("exec: %d %v", n, err)
	}
	must(t, c.Rollback(ctx))
	if n := count(t, c); n != 0 {
		t.Fatalf("%d rows after rollback", n)
	}

	// Begin with a query first, then ExecCommit: both statements commit.
	must(t, c.Begin(ctx))
	rows, err := c.Query(ctx, "SELECT txid_current()")
	must(t, err)
	rows.Close()
	if n, err := c.ExecCommit(ctx, "INSERT INTO t VALUES ($1)", 1); err != nil || n != 1 {
		t.Fatalf("exec commit: %d %v", n, err)
	}
	must(t, c.Rollback(ctx)) // after a commit: nothing to do
	if n := count(t, c); n != 1 {
		t.Fatalf("%d rows after ExecCommit, want 1", n)
	}

	// A transaction whose last statement fails commits nothing, and the
	// session stays usable.
	must(t, c.Begin(ctx))
	_, err = c.Exec(ctx, "INSERT INTO t VALUES (2)")
	must(t, err)
	_, err = c.ExecCommit(ctx, "INSERT INTO t VALUES (1)") // duplicate key
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || target.CommitOutcomeUnknown(err) {
		t.Fatalf("ExecCommit of a failing statement: %v", err)
	}
	if n := count(t, c); n != 1 || c.Broken() {
		t.Fatalf("%d rows (want 1), broken %v", n, c.Broken())
	}

	// Begin and commit with nothing in between send nothing.
	must(t, c.Begin(ctx))
	must(t, c.Commit(ctx))
	must(t, c.Begin(ctx))
	must(t, c.Rollback(ctx))

	// ExecCommit right after Begin is one round trip with BEGIN.
	must(t, c.Begin(ctx))
	if _, err := c.ExecCommit(ctx, "INSERT INTO t VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}

	// A failed statement makes the plain Commit report the rollback.
	must(t, c.Begin(ctx))
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (3)"); err == nil {
		t.Fatal("duplicate insert succeeded")
	}
	if err := c.Commit(ctx); err == nil || target.CommitOutcomeUnknown(err) {
		t.Fatalf("commit of a failed transaction: %v", err)
	}
}

// TestRollbackWithContextDone: Rollback ends the transaction on the server
// even when its context is done (a run's end cancelled the work midway),
// so that what the session runs next is not part of it: the insert after
// it commits alone.
func TestRollbackWithContextDone(t *testing.T) {
	tg, c := pgConn(t)
	ctx := context.Background()
	must(t, c.Begin(ctx))
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	c.Rollback(done)
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, testutil.Session(t, tg)); n != 1 {
		t.Errorf("another session sees %d rows, want 1: the insert after the rollback went into the transaction still open", n)
	}
}

func TestFatalDuringCommitIsUnknown(t *testing.T) {
	for _, sev := range []string{"FATAL", "PANIC"} {
		if !target.CommitOutcomeUnknown(&pgconn.PgError{Severity: sev, Code: "57P01"}) {
			t.Errorf("%s 57P01 during commit should leave the outcome unknown", sev)
		}
	}
	if target.CommitOutcomeUnknown(&pgconn.PgError{Severity: "ERROR", Code: "40001"}) {
		t.Error("a serialization failure means the commit did not happen")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenMalformedURLHidesPassword checks the error of a URL pgx cannot
// parse: it names the URL, with the password masked. Nothing is contacted.
func TestOpenMalformedURLHidesPassword(t *testing.T) {
	for _, spec := range []string{
		"postgres://u:s3cretpw@h:notaport/db",
		"postgresql://u:s3cretpw@h/db?connect_timeout=abc",
	} {
		_, err := target.OpenURL(context.Background(), spec)
		if err == nil {
			t.Fatalf("Open(%q) succeeded, want an error", spec)
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cretpw") {
			t.Errorf("Open(%q) error leaks the password: %s", spec, msg)
		}
		if !strings.Contains(msg, "malformed database URL") || !strings.Contains(msg, "xxxxx") {
			t.Errorf("Open(%q) error = %q, want it to say malformed database URL and show the masked URL", spec, msg)
		}
	}
}

// TestMissingDatabaseSaysSoFirst: with the default sslmode=prefer, pgx
// tries TLS and then plain text; the server's answer to the plain-text
// attempt (the database does not exist) is the cause, so it comes first.
func TestMissingDatabaseSaysSoFirst(t *testing.T) {
	u, err := url.Parse(testutil.SharedPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/nosuch"
	u.RawQuery = "" // sslmode=prefer, the default: TLS first (refused), then plain text
	_, err = target.OpenURL(context.Background(), u.String())
	if err == nil {
		t.Fatal("opened a database that does not exist")
	}
	msg := err.Error()
	missing := strings.Index(msg, `database "nosuch" does not exist`)
	if missing < 0 {
		t.Fatalf("error does not name the missing database: %s", msg)
	}
	if tls := strings.Index(msg, "tls error"); tls >= 0 && tls < missing {
		t.Errorf("the TLS attempt's error comes first: %s", msg)
	}
	if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "3D000" {
		t.Errorf("error does not unwrap to the server's 3D000: %v", err)
	}
}
