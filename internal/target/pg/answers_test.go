package pg_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/target/pg"
	"github.com/txnbench/txnbench/internal/testutil"
)

// noSink is the step that has no sink.
const noSink = "simple without sink"

type rows struct {
	cols []string
	vals [][]string // "<nil>" for NULL
	ends []int
}

func (r *rows) Row(_ int, cols []string, vals [][]byte) error {
	r.cols = append(r.cols[:0], cols...)
	var row []string
	for _, v := range vals {
		if v == nil {
			row = append(row, "<nil>")
		} else {
			row = append(row, string(v))
		}
	}
	r.vals = append(r.vals, row)
	return nil
}

func (r *rows) EndResult(_ int, n int) error { r.ends = append(r.ends, n); return nil }

// scriptConn is a session of the shared cluster, closed at the test's end.
func scriptConn(t *testing.T) target.ScriptConn {
	t.Helper()
	ctx := context.Background()
	tg, err := target.OpenURL(ctx, testutil.SharedPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c.(target.ScriptConn)
}

// TestAnswersReadHere: a script statement's plain answers are read by the
// script's own reader (its count of exchanges grows), and whatever it
// does not handle is pgconn's, from the same stream: an error, a notice,
// a transaction status change, a RowDescription a sink needs. Every
// statement's rows, errors and the session's status are right, and
// nothing is left unread between statements.
func TestAnswersReadHere(t *testing.T) {
	ctx := context.Background()
	sc := scriptConn(t)
	if _, _, ok := pg.ReadAhead(sc); !ok {
		t.Fatalf("%T on TCP has no reader of its own", sc)
	}
	// step runs one statement, its rows into a sink unless noSink.
	step := func(what string, mode target.QueryMode, name, sql string, here bool, params ...string) (*rows, error) {
		t.Helper()
		var ps [][]byte
		for _, p := range params {
			ps = append(ps, []byte(p))
		}
		before, _, _ := pg.ReadAhead(sc)
		r := &rows{}
		var sink target.RowSink = r
		if what == noSink {
			sink = nil
		}
		err := sc.Statement(ctx, mode, name, sql, ps, sink)
		after, unread, _ := pg.ReadAhead(sc)
		if got := after > before; got != here {
			t.Errorf("%s: read by the script's reader %v, want %v", what, got, here)
		}
		if unread != 0 {
			t.Errorf("%s: %d bytes left unread", what, unread)
		}
		return r, err
	}
	// A prepared statement: no RowDescription, all plain.
	r, err := step("prepared select", target.QueryPrepared, "a", "SELECT $1::int AS n, NULL::text AS z, ''::text AS e", true, "42")
	if err != nil || len(r.vals) != 1 || r.vals[0][0] != "42" || r.vals[0][1] != "<nil>" || r.vals[0][2] != "" || len(r.ends) != 1 ||
		r.cols[0] != "n" || r.cols[2] != "e" {
		t.Errorf("prepared select: %+v, %v", r, err)
	}
	r, err = step("two rows", target.QueryPrepared, "b", "SELECT g FROM generate_series(1, $1::int) g", true, "2")
	if err != nil || len(r.vals) != 2 || r.vals[1][0] != "2" || r.ends[0] != 2 {
		t.Errorf("two rows: %+v, %v", r, err)
	}
	// An error: pgconn reads it, and the statement reports it.
	_, err = step("division by zero", target.QueryPrepared, "c", "SELECT 1/$1::int", false, "0")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Errorf("division by zero: %v, want SQLSTATE 22012", err)
	}
	// A sink that needs the columns of a RowDescription: pgconn's.
	r, err = step("extended with sink", target.QueryExtended, "", "SELECT 7 AS seven", false)
	if err != nil || len(r.cols) != 1 || r.cols[0] != "seven" || r.vals[0][0] != "7" {
		t.Errorf("extended with sink: %+v, %v", r, err)
	}
	// Without one the simple protocol's RowDescription is skipped here.
	if _, err := step(noSink, target.QuerySimple, "", "SELECT 1; SELECT 2", true); err != nil {
		t.Error(err)
	}
	// BEGIN changes the status: pgconn reads its ReadyForQuery.
	if _, err := step("begin", target.QuerySimple, "", "BEGIN", false); err != nil || !sc.InTransaction() {
		t.Errorf("begin: in transaction %v, %v", sc.InTransaction(), err)
	}
	if _, err := step("in a transaction", target.QueryPrepared, "a", "SELECT $1::int AS n, NULL::text AS z, ''::text AS e", true, "1"); err != nil || !sc.InTransaction() {
		t.Errorf("in a transaction: in transaction %v, %v", sc.InTransaction(), err)
	}
	// A notice is pgconn's too.
	if _, err := step("notice", target.QuerySimple, "", "DO $$BEGIN RAISE NOTICE 'hello'; END$$", false); err != nil {
		t.Error(err)
	}
	if _, err := step("commit", target.QuerySimple, "", "COMMIT", false); err != nil || sc.InTransaction() {
		t.Errorf("commit: in transaction %v, %v", sc.InTransaction(), err)
	}
	r, err = step("after all that", target.QueryPrepared, "b", "SELECT g FROM generate_series(1, $1::int) g", true, "3")
	if err != nil || len(r.vals) != 3 || r.vals[2][0] != "3" {
		t.Errorf("after all that: %+v, %v", r, err)
	}
}

// TestPreparedNameReused: a prepared statement's name given again with
// other SQL runs the new SQL (the name is prepared again), and the first
// SQL again after it runs the first, so that what a session remembers of
// its last statement never stands in for another under the same name.
func TestPreparedNameReused(t *testing.T) {
	ctx := context.Background()
	sc := scriptConn(t)
	for i, sql := range []string{"SELECT 1", "SELECT 1", "SELECT 2", "SELECT 2", "SELECT 1", "SELECT 2"} {
		r := &rows{}
		if err := sc.Statement(ctx, target.QueryPrepared, "P_0", sql, nil, r); err != nil {
			t.Fatalf("statement %d (%s): %v", i, sql, err)
		}
		if want := sql[len("SELECT "):]; len(r.vals) != 1 || r.vals[0][0] != want {
			t.Errorf("statement %d (%s): rows %v, want [[%s]]", i, sql, r.vals, want)
		}
	}
}
