package target_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// sink records every result of a statement as strings ("NULL" for nil).
type sink struct {
	cols [][]string // per result
	rows []string   // "result:v1,v2"
	ends []int      // row count per result
}

func (s *sink) Row(n int, cols []string, vals [][]byte) error {
	for len(s.cols) <= n {
		s.cols = append(s.cols, nil)
	}
	s.cols[n] = append([]string(nil), cols...)
	var vs []string
	for _, v := range vals {
		if v == nil {
			vs = append(vs, "NULL")
		} else {
			vs = append(vs, string(v))
		}
	}
	s.rows = append(s.rows, fmt.Sprintf("%d:%s", n, strings.Join(vs, ",")))
	return nil
}

func (s *sink) EndResult(n, rows int) error {
	if n != len(s.ends) {
		return fmt.Errorf("EndResult(%d) after %d results", n, len(s.ends))
	}
	s.ends = append(s.ends, rows)
	return nil
}

func scriptConn(t *testing.T, c target.Conn) target.ScriptConn {
	t.Helper()
	sc, ok := c.(target.ScriptConn)
	if !ok {
		t.Fatalf("%T is not a ScriptConn", c)
	}
	return sc
}

func stmt(t *testing.T, c target.ScriptConn, mode target.QueryMode, name, sql string, params ...any) *sink {
	t.Helper()
	s := &sink{}
	if err := c.Statement(context.Background(), mode, name, sql, textParams(params), s); err != nil {
		t.Fatalf("%s %q: %v", mode, sql, err)
	}
	return s
}

func textParams(params []any) [][]byte {
	var out [][]byte
	for _, p := range params {
		if p == nil {
			out = append(out, nil)
		} else {
			out = append(out, []byte(fmt.Sprint(p)))
		}
	}
	return out
}

// scriptBackends runs f against PostgreSQL and SQLite.
func scriptBackends(t *testing.T, f func(t *testing.T, tg target.Target, c target.ScriptConn, pg bool)) {
	t.Run("postgres", func(t *testing.T) {
		tg, err := target.OpenURL(context.Background(), testutil.SharedPostgres(t))
		must(t, err)
		c := connectTo(t, tg)
		f(t, tg, scriptConn(t, c), true)
	})
	t.Run("sqlite", func(t *testing.T) {
		tg := testutil.Open(t, "sqlite:")
		c := connectTo(t, tg)
		f(t, tg, scriptConn(t, c), false)
	})
}

func TestParseQueryMode(t *testing.T) {
	for _, m := range []target.QueryMode{target.QuerySimple, target.QueryExtended, target.QueryPrepared} {
		got, err := target.ParseQueryMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseQueryMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := target.ParseQueryMode("Simple"); err == nil || err.Error() != `invalid query mode (-M): "Simple"` {
		t.Errorf("ParseQueryMode(Simple): %v", err)
	}
}

func TestScriptStatementModes(t *testing.T) {
	scriptBackends(t, func(t *testing.T, tg target.Target, c target.ScriptConn, pg bool) {
		ctx := context.Background()
		stmt(t, c, target.QuerySimple, "", "CREATE TABLE s (k int PRIMARY KEY, v text)")

		// Simple: several statements, one result each, NULLs as nil.
		s := stmt(t, c, target.QuerySimple, "", "INSERT INTO s VALUES (1, 'one'), (2, NULL); SELECT k, v FROM s ORDER BY k; SELECT 7 AS seven")
		if want := []int{0, 2, 1}; !reflect.DeepEqual(s.ends, want) {
			t.Errorf("simple compound: row counts %v, want %v", s.ends, want)
		}
		if want := []string{"1:1,one", "1:2,NULL", "2:7"}; !reflect.DeepEqual(s.rows, want) {
			t.Errorf("simple compound rows %v, want %v", s.rows, want)
		}
		if !reflect.DeepEqual(s.cols[1], []string{"k", "v"}) || !reflect.DeepEqual(s.cols[2], []string{"seven"}) {
			t.Errorf("columns %v", s.cols)
		}
		if err := c.Statement(ctx, target.QuerySimple, "", "SELECT 1", [][]byte{[]byte("1")}, nil); err == nil {
			t.Error("simple mode accepted parameters")
		}

		// Extended: text parameters, a nil one is NULL.
		for _, mode := range []target.QueryMode{target.QueryExtended, target.QueryPrepared} {
			name := "P_" + mode.String()
			ins := "INSERT INTO s VALUES ($1, $2)"
			k := 10 + int(mode)
			stmt(t, c, mode, name+"_ins", ins, k, nil)
			s = stmt(t, c, mode, name+"_sel", "SELECT v IS NULL, k + 1 FROM s WHERE k = $1", k)
			want := []string{"0:t," + fmt.Sprint(k+1)}
			if !pg {
				want = []string{"0:1," + fmt.Sprint(k+1)}
			}
			if !reflect.DeepEqual(s.rows, want) || !reflect.DeepEqual(s.ends, []int{1}) {
				t.Errorf("%s: rows %v ends %v, want %v", mode, s.rows, s.ends, want)
			}
			// No rows and no sink: nothing to see, no error.
			if err := c.Statement(ctx, mode, name+"_sel", "SELECT v IS NULL, k + 1 FROM s WHERE k = $1", textParams([]any{-1}), nil); err != nil {
				t.Errorf("%s without sink: %v", mode, err)
			}
		}
		if err := c.Statement(ctx, target.QueryPrepared, "", "SELECT 1", nil, nil); err == nil {
			t.Error("prepared mode without a name succeeded")
		}
	})
}

// TestScriptPreparedOncePerSession: a name is prepared once per session,
// prepared again when it comes with another text, and a new session
// prepares it again.
func TestScriptPreparedOncePerSession(t *testing.T) {
	scriptBackends(t, func(t *testing.T, tg target.Target, c target.ScriptConn, pg bool) {
		ctx := context.Background()
		stmt(t, c, target.QueryPrepared, "P_0", "SELECT 'first'")
		var before []string
		if pg {
			before = stmt(t, c, target.QuerySimple, "", "SELECT prepare_time FROM pg_prepared_statements").rows
		}
		s := stmt(t, c, target.QueryPrepared, "P_0", "SELECT 'first'")
		if !reflect.DeepEqual(s.rows, []string{"0:first"}) {
			t.Errorf("rows %v", s.rows)
		}
		if pg {
			if after := stmt(t, c, target.QuerySimple, "", "SELECT prepare_time FROM pg_prepared_statements").rows; !reflect.DeepEqual(after, before) || len(after) != 1 {
				t.Errorf("prepared at %v, then %v: prepared again", before, after)
			}
		}
		s = stmt(t, c, target.QueryPrepared, "P_0", "SELECT 'second'")
		if !reflect.DeepEqual(s.rows, []string{"0:second"}) {
			t.Errorf("another text under the same name: %v", s.rows)
		}
		must(t, c.Prepare(ctx, "P_0", "SELECT 'second'"))
		if pg {
			s = stmt(t, c, target.QuerySimple, "", "SELECT count(*), min(statement) FROM pg_prepared_statements")
			if !reflect.DeepEqual(s.rows, []string{"0:1,SELECT 'second'"}) {
				t.Errorf("prepared statements on the session: %v", s.rows)
			}
		}
		other := scriptConn(t, connectTo(t, tg))
		s = stmt(t, other, target.QueryPrepared, "P_0", "SELECT 'other session'")
		if !reflect.DeepEqual(s.rows, []string{"0:other session"}) {
			t.Errorf("new session: %v", s.rows)
		}
	})
}

// TestScriptPooledPreparedSurvivesRelease: a pool hands the same session
// out again; its prepared statements are remembered with it.
func TestScriptPooledPreparedSurvivesRelease(t *testing.T) {
	ctx := context.Background()
	tg, err := target.OpenURL(ctx, testutil.SharedPostgres(t))
	must(t, err)
	pool, err := tg.OpenPool(ctx, target.PoolConfig{Max: 1})
	must(t, err)
	defer pool.Close()
	var first []string
	for i := 0; i < 3; i++ {
		c, err := pool.Acquire(ctx)
		must(t, err)
		sc := scriptConn(t, c)
		stmt(t, sc, target.QueryPrepared, "P_0", "SELECT 1")
		s := stmt(t, sc, target.QuerySimple, "", "SELECT prepare_time FROM pg_prepared_statements")
		if i == 0 {
			first = s.rows
		} else if !reflect.DeepEqual(s.rows, first) || len(first) != 1 {
			t.Errorf("acquire %d: prepared at %v, first at %v: prepared again", i, s.rows, first)
		}
		c.Close(ctx)
	}
}

func TestScriptErrorsAndTransactions(t *testing.T) {
	scriptBackends(t, func(t *testing.T, tg target.Target, c target.ScriptConn, pg bool) {
		ctx := context.Background()
		stmt(t, c, target.QuerySimple, "", "CREATE TABLE e (k int PRIMARY KEY)")
		if c.InTransaction() {
			t.Fatal("in a transaction before BEGIN")
		}
		// Conn's lazy Begin is not sent by script statements.
		must(t, c.Begin(ctx))
		stmt(t, c, target.QueryExtended, "", "SELECT 1")
		must(t, c.Rollback(ctx))

		for _, mode := range []target.QueryMode{target.QuerySimple, target.QueryExtended, target.QueryPrepared} {
			stmt(t, c, mode, "B_"+mode.String(), "BEGIN")
			if !c.InTransaction() {
				t.Errorf("%s: not in a transaction after BEGIN", mode)
			}
			stmt(t, c, mode, "I_"+mode.String(), "INSERT INTO e VALUES (1)")
			err := c.Statement(ctx, mode, "I_"+mode.String(), "INSERT INTO e VALUES (1)", nil, nil)
			if err == nil {
				t.Fatalf("%s: duplicate insert succeeded", mode)
			}
			if cl := target.Classify(err); cl != errclass.Other {
				t.Errorf("%s: duplicate key classified %q", mode, cl)
			}
			if !c.InTransaction() {
				t.Errorf("%s: a failed transaction block is still a transaction", mode)
			}
			stmt(t, c, mode, "R_"+mode.String(), "ROLLBACK")
			if c.InTransaction() {
				t.Errorf("%s: in a transaction after ROLLBACK", mode)
			}
		}
		if pg {
			// A serialization failure is retryable.
			err := c.Statement(ctx, target.QueryExtended, "", "DO $$BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40001'; END$$", nil, nil)
			if cl := target.Classify(err); cl != errclass.Serialization || !cl.Retryable() {
				t.Errorf("40001 classified %q (%v)", cl, err)
			}
			// A simple compound stops at the failing statement.
			s := &sink{}
			err = c.Statement(ctx, target.QuerySimple, "", "SELECT 1; SELECT 1/0; SELECT 3", nil, s)
			if err == nil || !reflect.DeepEqual(s.rows, []string{"0:1"}) {
				t.Errorf("compound with an error: %v, rows %v", err, s.rows)
			}
		}
	})
}

func TestScriptPipelines(t *testing.T) {
	scriptBackends(t, func(t *testing.T, tg target.Target, c target.ScriptConn, pg bool) {
		ctx := context.Background()
		stmt(t, c, target.QuerySimple, "", "CREATE TABLE p (k int PRIMARY KEY)")
		for _, mode := range []target.QueryMode{target.QueryExtended, target.QueryPrepared} {
			stmt(t, c, target.QuerySimple, "", "DELETE FROM p")
			must(t, c.StartPipeline(ctx))
			if !c.InPipeline() {
				t.Fatal("InPipeline false after StartPipeline")
			}
			if err := c.StartPipeline(ctx); err == nil {
				t.Error("a second StartPipeline succeeded")
			}
			if err := c.Statement(ctx, target.QuerySimple, "", "SELECT 1", nil, nil); err == nil {
				t.Error("simple mode in a pipeline accepted")
			}
			name := "pipe_" + mode.String()
			s1, s2 := &sink{}, &sink{}
			must(t, c.Statement(ctx, mode, name+"_ins", "INSERT INTO p VALUES ($1)", textParams([]any{1}), nil))
			must(t, c.Statement(ctx, mode, name+"_sel", "SELECT count(*) FROM p WHERE k >= $1", textParams([]any{0}), s1))
			must(t, c.Statement(ctx, mode, name+"_ins", "INSERT INTO p VALUES ($1)", textParams([]any{1}), nil)) // fails
			must(t, c.Statement(ctx, mode, name+"_ins", "INSERT INTO p VALUES ($1)", textParams([]any{2}), nil)) // skipped
			must(t, c.SyncPipeline(ctx))
			must(t, c.Statement(ctx, mode, name+"_ins", "INSERT INTO p VALUES ($1)", textParams([]any{3}), nil))
			must(t, c.Statement(ctx, mode, name+"_sel", "SELECT count(*) FROM p WHERE k >= $1", textParams([]any{0}), s2))
			err := c.EndPipeline(ctx)
			if err == nil {
				t.Errorf("%s: the duplicate key in the pipeline was not reported", mode)
			}
			if c.InPipeline() {
				t.Error("InPipeline true after EndPipeline")
			}
			if !reflect.DeepEqual(s1.rows, []string{"0:1"}) {
				t.Errorf("%s: first count %v, want 1", mode, s1.rows)
			}
			s := stmt(t, c, target.QuerySimple, "", "SELECT k FROM p ORDER BY k")
			// Up to a sync the statements are one implicit transaction: the
			// error undoes 1 and skips 2; 3 comes after the sync.
			if want := []string{"0:3"}; !reflect.DeepEqual(s.rows, want) {
				t.Errorf("%s: rows after the pipeline %v, want %v", mode, s.rows, want)
			}
			if err := c.EndPipeline(ctx); err == nil {
				t.Error("EndPipeline outside a pipeline succeeded")
			}
		}
		// An error-free pipeline in one transaction.
		must(t, c.StartPipeline(ctx))
		for _, q := range []string{"BEGIN", "INSERT INTO p VALUES (10)", "INSERT INTO p VALUES (11)", "COMMIT"} {
			must(t, c.Statement(ctx, target.QueryExtended, "", q, nil, nil))
		}
		must(t, c.EndPipeline(ctx))
		s := stmt(t, c, target.QuerySimple, "", "SELECT count(*) FROM p WHERE k >= 10")
		if !reflect.DeepEqual(s.rows, []string{"0:2"}) {
			t.Errorf("pipelined transaction: %v", s.rows)
		}
	})
}

// TestScriptCancel: cancelling the context stops a running statement, and
// the session works again with a new context.
func TestScriptCancel(t *testing.T) {
	tg, err := target.OpenURL(context.Background(), testutil.SharedPostgres(t))
	must(t, err)
	c := scriptConn(t, connectTo(t, tg))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	t0 := time.Now()
	err = c.Statement(ctx, target.QueryPrepared, "sleep", "SELECT pg_sleep(20)", nil, nil)
	if target.Classify(err) != errclass.Canceled || time.Since(t0) > 10*time.Second {
		t.Fatalf("cancelled statement: %v after %v", err, time.Since(t0))
	}
	if err := c.Statement(ctx, target.QuerySimple, "", "SELECT 1", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("statement on a cancelled context: %v", err)
	}
	s := stmt(t, c, target.QueryExtended, "", "SELECT 2")
	if !reflect.DeepEqual(s.rows, []string{"0:2"}) || c.Broken() {
		t.Errorf("after the cancel: %v, broken %v", s.rows, c.Broken())
	}
}

// TestScriptPreparedThroughPgBouncer: PgBouncer 1.18 in transaction mode
// hands clients whatever server connection is free, so named prepared
// statements collide; the error names the fix.
func TestScriptPreparedThroughPgBouncer(t *testing.T) {
	b := testutil.PgBouncer(t, testutil.Postgres(t), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := target.OpenURL(ctx, b.URL("postgres"))
	must(t, err)
	a, c := scriptConn(t, connectTo(t, tg)), scriptConn(t, connectTo(t, tg))
	stmt(t, a, target.QueryPrepared, "P_0", "SELECT 1")
	err = c.Statement(ctx, target.QueryPrepared, "P_0", "SELECT 1", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "-M extended") {
		t.Fatalf("second client's prepare through PgBouncer: %v", err)
	}
	// Extended mode works through it.
	stmt(t, c, target.QueryExtended, "", "SELECT $1::int", 5)
}

func TestScriptSQLiteSplit(t *testing.T) {
	c := scriptConn(t, connectTo(t, testutil.Open(t, "sqlite:")))
	s := stmt(t, c, target.QuerySimple, "", "SELECT 'a;b' AS x; -- c;d\nSELECT /* e;f */ 2 AS y;;")
	if want := []string{"0:a;b", "1:2"}; !reflect.DeepEqual(s.rows, want) {
		t.Errorf("rows %v, want %v", s.rows, want)
	}
}

// TestScriptPreparedAllocations: the hot path of pgbench -M prepared (a
// prepared statement with a parameter, rows skipped, a cancellable
// context) allocates nothing per statement.
func TestScriptPreparedAllocations(t *testing.T) {
	tg, err := target.OpenURL(context.Background(), testutil.SharedPostgres(t))
	must(t, err)
	c := scriptConn(t, connectTo(t, tg))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := [][]byte{[]byte("42")}
	for _, mode := range []target.QueryMode{target.QueryPrepared, target.QueryExtended} {
		run := func() {
			if err := c.Statement(ctx, mode, "alloc", "SELECT $1::int", params, nil); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if n := testing.AllocsPerRun(200, run); n > 0 {
			t.Errorf("%s: %.1f allocations per statement, want 0", mode, n)
		}
	}
}

func BenchmarkScriptPrepared(b *testing.B) {
	cl := testutil.Postgres(b)
	tg, _ := target.OpenURL(context.Background(), cl.URL())
	cc, _ := tg.Connect(context.Background())
	c := cc.(target.ScriptConn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := [][]byte{[]byte("42")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := c.Statement(ctx, target.QueryPrepared, "alloc", "SELECT $1::int", params, nil); err != nil {
			b.Fatal(err)
		}
	}
}
