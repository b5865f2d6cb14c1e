package interp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pgbench/interp"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	"github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

var modes = []target.QueryMode{target.QuerySimple, target.QueryExtended, target.QueryPrepared}

// serverURL is the throwaway PostgreSQL the tests of this package share
// (each makes its own database), or "" when PostgreSQL is missing.
var serverURL string

func TestMain(m *testing.M) {
	var cl *localdb.Cluster
	if _, err := localdb.FindBinDir(""); err == nil {
		cl, err = localdb.Start(context.Background(), localdb.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting PostgreSQL:", err)
			os.Exit(1)
		}
		serverURL = testutil.LibpqURL(cl.URL())
	}
	code := m.Run()
	if cl != nil {
		cl.Stop()
	}
	os.Exit(code)
}

func pgURL(t testing.TB) string {
	t.Helper()
	if serverURL == "" {
		testutil.NeedPostgres(t)
		t.Fatal("PostgreSQL did not start")
	}
	return serverURL
}

// database makes a fresh database on the shared server and returns a
// target for it.
func database(t testing.TB) target.Target {
	t.Helper()
	ctx := context.Background()
	admin, err := target.OpenURL(ctx, pgURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := admin.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("t%d", time.Now().UnixNano())
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	u := strings.Replace(pgURL(t), "/postgres?", "/"+name+"?", 1)
	return testutil.Open(t, u)
}

func connect(t testing.TB, tg target.Target) target.ScriptConn {
	t.Helper()
	c, err := tg.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c.(target.ScriptConn)
}

func exec(t testing.TB, c target.ScriptConn, sql string) {
	t.Helper()
	if err := c.Statement(context.Background(), target.QuerySimple, "", sql, nil, nil); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// rowsOf returns a query's rows as "v1,v2" strings.
func rowsOf(t testing.TB, c target.ScriptConn, sql string) []string {
	t.Helper()
	var r collect
	if err := c.Statement(context.Background(), target.QuerySimple, "", sql, nil, &r); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return r.rows
}

type collect struct{ rows []string }

func (c *collect) Row(_ int, _ []string, vals [][]byte) error {
	var s []string
	for _, v := range vals {
		if v == nil {
			s = append(s, "NULL")
		} else {
			s = append(s, string(v))
		}
	}
	c.rows = append(c.rows, strings.Join(s, ","))
	return nil
}
func (c *collect) EndResult(int, int) error { return nil }

// pgbenchTables makes pgbench's tables at scale 1 (what pgbench -i makes,
// without fillfactor and foreign keys).
func pgbenchTables(t testing.TB, c target.ScriptConn) {
	t.Helper()
	exec(t, c, `CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88));
		CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int, tbalance int, filler char(84));
		CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84));
		CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
		INSERT INTO pgbench_branches SELECT 1, 0;
		INSERT INTO pgbench_tellers SELECT g, 1, 0 FROM generate_series(1, 10) g;
		INSERT INTO pgbench_accounts SELECT g, 1, 0, '' FROM generate_series(1, 100000) g`)
	exec(t, c, "VACUUM ANALYZE")
}

func parse(t testing.TB, text string) *script.Script {
	t.Helper()
	s, err := script.Parse("test.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func config(mode target.QueryMode, seed uint64, scripts ...*script.Script) *interp.Config {
	return &interp.Config{Scripts: scripts, Mode: mode, Scale: 1, Seeds: prng.Derive(seed, 4, 1)}
}

func TestBuiltinScripts(t *testing.T) {
	tg := database(t)
	c := connect(t, tg)
	pgbenchTables(t, c)
	ctx := context.Background()
	txns := 0
	for _, name := range script.BuiltinNames() {
		for _, mode := range modes {
			s, err := script.Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg := config(mode, 7, s)
			var timings int
			cfg.OnCommand = func(_, si, cmd int, d time.Duration) {
				if si != 0 || cmd < 0 || cmd >= len(s.Commands) || d < 0 {
					t.Errorf("OnCommand(%d, %d, %v)", si, cmd, d)
				}
				timings++
			}
			cl := interp.NewClient(cfg, 0)
			for i := 0; i < 20; i++ {
				cl.Begin()
				if err := cl.Run(ctx, c, 0); err != nil {
					t.Fatalf("%s -M %s: %v", name, mode, err)
				}
			}
			if timings != 20*len(s.Commands) {
				t.Errorf("%s -M %s: %d timings, want %d", name, mode, timings, 20*len(s.Commands))
			}
			if name != "select-only" {
				txns += 20
			}
			if aid, ok := cl.Variable("aid"); !ok || aid == "" {
				t.Errorf("%s: aid %q %v", name, aid, ok)
			}
		}
	}
	got := rowsOf(t, c, `SELECT (SELECT count(*) FROM pgbench_history), (SELECT sum(delta) FROM pgbench_history) = (SELECT sum(abalance) FROM pgbench_accounts),
		(SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(bbalance) FROM pgbench_branches)`)
	if want := []string{fmt.Sprintf("%d,t,t", txns)}; !reflect.DeepEqual(got, want) {
		t.Errorf("history count, balances: %v, want %v", got, want)
	}
}

// TestAutomaticVariables: client_id, scale, random_seed, default_seed and
// -D strings, which override the automatic ones.
func TestAutomaticVariables(t *testing.T) {
	s := parse(t, `\set x 1`)
	cfg := config(target.QuerySimple, 99, s)
	cfg.Scale = 5
	cfg.Defines = map[string]string{"name": "bob", "scale": "7"}
	cl := interp.NewClient(cfg, 3)
	want := map[string]string{"client_id": "3", "scale": "7", "name": "bob", "random_seed": "99",
		"default_seed": fmt.Sprint(cfg.Seeds.DefaultSeed)}
	for n, w := range want {
		if v, ok := cl.Variable(n); !ok || v != w {
			t.Errorf(":%s = %q (%v), want %q", n, v, ok, w)
		}
	}
	if _, ok := cl.Variable("x"); ok {
		t.Error(":x defined before the script ran")
	}
}

// run runs text once on a fresh client of a fresh connection.
func run(t *testing.T, tg target.Target, mode target.QueryMode, text string) (*interp.Client, target.ScriptConn, string, error) {
	t.Helper()
	s := parse(t, text)
	cfg := config(mode, 1, s)
	var out bytes.Buffer
	cfg.Stderr, cfg.Stdout = &out, &out
	cl := interp.NewClient(cfg, 0)
	c := connect(t, tg)
	cl.Begin()
	err := cl.Run(context.Background(), c, 0)
	return cl, c, out.String(), err
}

func vars(cl *interp.Client, names ...string) string {
	var out []string
	for _, n := range names {
		v, ok := cl.Variable(n)
		if !ok {
			v = "<unset>"
		}
		out = append(out, n+"="+v)
	}
	return strings.Join(out, " ")
}

func TestGsetAset(t *testing.T) {
	tg := database(t)
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			text := `SELECT 1 AS a, 'x' AS b, NULL AS n \gset p_
\set c :p_a + 1
SELECT 5 AS v, 6 AS w \gset
SELECT 10 AS one FROM generate_series(1, 2) \aset
`
			if mode == target.QuerySimple {
				text += `SELECT 1 AS q1 \; SELECT 2 AS q2 \; SELECT 3 AS q2 WHERE false \; SELECT 4 AS q4 \aset
SELECT 7 AS g1 \; SELECT 8 AS g2 \gset
`
			}
			cl, _, _, err := run(t, tg, mode, text)
			if err != nil {
				t.Fatal(err)
			}
			got := vars(cl, "p_a", "p_b", "p_n", "c", "v", "w", "one", "q1", "q2", "q4", "g1", "g2")
			want := "p_a=1 p_b=x p_n= c=2 v=5 w=6 one=10 q1=<unset> q2=<unset> q4=<unset> g1=<unset> g2=<unset>"
			if mode == target.QuerySimple {
				want = "p_a=1 p_b=x p_n= c=2 v=5 w=6 one=10 q1=1 q2=2 q4=4 g1=<unset> g2=8"
			}
			if got != want {
				t.Errorf("variables\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestRuntimeErrors(t *testing.T) {
	tg := database(t)
	c := connect(t, tg)
	exec(t, c, "CREATE TABLE e (k int)")
	tests := []struct {
		name, text string
		mode       target.QueryMode
		lines      []string
		abort      bool // wraps workload.ErrAbortClient
	}{
		{"division by zero", "\\set x 1\n\\set y :x / 0\n", target.QuerySimple,
			[]string{"division by zero", "client 0 aborted in command 1 (set) of script 0; evaluation of meta-command failed"}, true},
		{"undefined variable", "\\set y :nope + 1\n", target.QuerySimple,
			[]string{`undefined variable "nope"`, "client 0 aborted in command 0 (set) of script 0; evaluation of meta-command failed"}, true},
		{"if", "\\if :nope\n\\endif\n", target.QuerySimple,
			[]string{`undefined variable "nope"`, "client 0 aborted in command 0 (if) of script 0; evaluation of meta-command failed"}, true},
		{"sleep undefined", "\\sleep :nope ms\n", target.QuerySimple,
			[]string{`sleep: undefined variable "nope"`, "client 0 aborted in command 0 (sleep) of script 0; execution of meta-command failed"}, true},
		{"sleep not a number", "\\set d 'x'\n", target.QuerySimple, nil, false}, // placeholder, replaced below
		{"gset no row", "SELECT 1 AS a WHERE false \\gset\n", target.QueryExtended,
			[]string{"client 0 script 0 command 0 query 0: expected one row, got 0"}, true},
		{"gset two rows", "SELECT 1 AS a FROM generate_series(1, 2) \\gset\n", target.QueryPrepared,
			[]string{"client 0 script 0 command 0 query 0: expected one row, got 2"}, true},
		{"gset on a command", "INSERT INTO e VALUES (1) \\gset\n", target.QuerySimple,
			[]string{"client 0 script 0 command 0 query 0: expected one row, got 0"}, true},
		{"gset bad column", "SELECT 1 \\gset\n", target.QuerySimple,
			[]string{`gset: invalid variable name: "?column?"`, "client 0 script 0 command 0 query 0: error storing into variable ?column?"}, true},
		{"open transaction", "BEGIN;\nINSERT INTO e VALUES (2);\n", target.QueryExtended,
			[]string{"client 0 aborted: end of script reached without completing the last transaction"}, true},
		{"pipeline simple", "\\startpipeline\n\\endpipeline\n", target.QuerySimple,
			[]string{"client 0 aborted in command 0 (startpipeline) of script 0; cannot use pipeline mode with the simple query protocol"}, true},
		{"pipeline open", "\\startpipeline\nSELECT 1;\n", target.QueryExtended,
			[]string{"client 0 aborted: end of script reached with pipeline open"}, true},
		{"endpipeline", "\\endpipeline\n", target.QueryExtended,
			[]string{"client 0 aborted in command 0 (endpipeline) of script 0; not in pipeline mode"}, true},
		{"gset in pipeline", "\\startpipeline\nSELECT 1 AS a \\gset\n\\endpipeline\n", target.QueryPrepared,
			[]string{"client 0 aborted in command 1 (gset) of script 0; \\gset is not allowed in pipeline mode"}, true},
		{"sql", "SELECT 1;\nSELECT 1/0;\n", target.QuerySimple,
			[]string{"client 0 script 0 aborted in command 1 query 0: ERROR:  division by zero"}, false},
		{"sql compound", "SELECT 1 \\; SELECT 1/0;\n", target.QuerySimple,
			[]string{"client 0 script 0 aborted in command 0 query 1: ERROR:  division by zero"}, false},
	}
	tests[4] = struct {
		name, text string
		mode       target.QueryMode
		lines      []string
		abort      bool
	}{"sleep not a number", "SELECT 'x' AS d \\gset\n\\sleep :d\n", target.QuerySimple,
		[]string{`sleep: invalid sleep time "x" for variable "d"`, "client 0 aborted in command 1 (sleep) of script 0; execution of meta-command failed"}, true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c, _, err := run(t, tg, tc.mode, tc.text)
			if err == nil {
				t.Fatal("no error")
			}
			var lines []string
			var ie *interp.Error
			if errors.As(err, &ie) {
				lines = ie.Lines()
			} else {
				lines = strings.Split(err.Error(), "\n")
			}
			if !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("lines\n%q\nwant\n%q", lines, tc.lines)
			}
			if errors.Is(err, workload.ErrAbortClient) != tc.abort {
				t.Errorf("aborts the client: %v, want %v", !tc.abort, tc.abort)
			}
			if c.InTransaction() || c.InPipeline() {
				t.Errorf("left in a transaction %v, in a pipeline %v", c.InTransaction(), c.InPipeline())
			}
		})
	}
}

func TestConditionals(t *testing.T) {
	tg := database(t)
	text := `\if :x = 1
\set r 1
\elif :x = 2
\set r 2
\if :x > 1
\set s 20
\endif
\elif :x = 3
\set r 3
\else
\set r 9
\if :x < 0
\set s -1
\else
\set s 1
\endif
\endif
\set after 1
`
	tests := []struct {
		x     int
		vars  string
		timed []int // the commands executed, as -r times them
	}{
		{1, "r=1 s=<unset> after=1", []int{0, 1, 2, 17}},
		{2, "r=2 s=20 after=1", []int{0, 2, 3, 4, 5, 6, 7, 17}},
		{3, "r=3 s=<unset> after=1", []int{0, 2, 7, 8, 9, 17}},
		{4, "r=9 s=1 after=1", []int{0, 2, 7, 10, 11, 14, 15, 16, 17}},
		{-1, "r=9 s=-1 after=1", []int{0, 2, 7, 10, 11, 12, 13, 16, 17}},
	}
	for _, tc := range tests {
		s := parse(t, text)
		cfg := config(target.QueryExtended, 1, s)
		cfg.Defines = map[string]string{"x": fmt.Sprint(tc.x)}
		var timed []int
		cfg.OnCommand = func(_, _, cmd int, _ time.Duration) { timed = append(timed, cmd) }
		cl := interp.NewClient(cfg, 0)
		cl.Begin()
		if err := cl.Run(context.Background(), connect(t, tg), 0); err != nil {
			t.Fatal(err)
		}
		if got := vars(cl, "r", "s", "after"); got != tc.vars {
			t.Errorf("x=%d: %s, want %s", tc.x, got, tc.vars)
		}
		if !reflect.DeepEqual(timed, tc.timed) {
			t.Errorf("x=%d: commands timed %v, want %v", tc.x, timed, tc.timed)
		}
	}
}

func TestShell(t *testing.T) {
	tg := database(t)
	tests := []struct {
		name, text, vars, out string
		lines                 []string
	}{
		{"setshell", "\\set x 40\n\\setshell v echo :x\n\\setshell w printf '  -7  \\n'\n", "v=40 w=-7", "", nil},
		{"shell output", "\\shell echo hello :client_id ::lit\n", "", "hello 0 :lit\n", nil},
		{"setshell not an integer", "\\setshell v echo abc\n", "", "",
			[]string{"setshell: shell command must return an integer (not \"abc\n\")", "client 0 aborted in command 0 (setshell) of script 0; execution of meta-command failed"}},
		{"setshell no output", "\\setshell v true\n", "", "",
			[]string{"setshell: could not read result of shell command", "client 0 aborted in command 0 (setshell) of script 0; execution of meta-command failed"}},
		{"shell fails", "\\shell exit 3\n", "", "",
			[]string{"shell: could not launch shell command", "client 0 aborted in command 0 (shell) of script 0; execution of meta-command failed"}},
		{"undefined", "\\shell echo :nope\n", "", "",
			[]string{"shell: undefined variable \":nope\"", "client 0 aborted in command 0 (shell) of script 0; execution of meta-command failed"}},
		{"too long", "\\shell echo " + strings.Repeat("x", 250) + "\n", "", "",
			[]string{"shell: shell command is too long", "client 0 aborted in command 0 (shell) of script 0; execution of meta-command failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl, _, out, err := run(t, tg, target.QuerySimple, tc.text)
			var lines []string
			var ie *interp.Error
			if errors.As(err, &ie) {
				lines = ie.Lines()
			} else if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("error lines\n%q\nwant\n%q", lines, tc.lines)
			}
			if tc.vars != "" {
				if got := vars(cl, "v", "w"); got != tc.vars {
					t.Errorf("%s, want %s", got, tc.vars)
				}
			}
			if out != tc.out {
				t.Errorf("output %q, want %q", out, tc.out)
			}
		})
	}
}

// TestRetryReplaysRandomState: a transaction retried after a
// serialization failure draws the same random values, as pgbench's
// retries do; the next transaction draws new ones.
func TestRetryReplaysRandomState(t *testing.T) {
	tg := database(t)
	c := connect(t, tg)
	exec(t, c, "CREATE TABLE got (try int, r bigint); CREATE SEQUENCE fail")
	s := parse(t, `\set r random(1, 1000000000)
BEGIN;
INSERT INTO got SELECT 0, :r;
DO $$BEGIN IF nextval('fail') % 2 = 1 THEN RAISE EXCEPTION 'try again' USING ERRCODE = '40001'; END IF; END$$;
INSERT INTO got SELECT 1, :r;
END;
`)
	for _, mode := range modes {
		exec(t, c, "TRUNCATE got; ALTER SEQUENCE fail RESTART")
		cfg := config(mode, 5, s)
		cl := interp.NewClient(cfg, 1)
		ctx := context.Background()
		want := prng.NewState(cfg.Seeds.Client[1])
		for txn := 0; txn < 2; txn++ {
			cl.Begin()
			err := cl.Run(ctx, c, 0)
			var se *interp.SQLError
			if !errors.As(err, &se) || !target.Classify(err).Retryable() {
				t.Fatalf("%s: first try: %v", mode, err)
			}
			// libpq's message in full: the CONTEXT of the RAISE too
			if wantMsg := "client 1 got an error in command 3 (SQL) of script 0; ERROR:  try again\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE"; err.Error() != wantMsg {
				t.Errorf("%s: %q, want %q", mode, err.Error(), wantMsg)
			}
			if c.InTransaction() {
				t.Fatalf("%s: the failed transaction was left open", mode)
			}
			if err := cl.Run(ctx, c, 0); err != nil { // the retry
				t.Fatalf("%s: retry: %v", mode, err)
			}
			r := want.Rand(1, 1000000000)
			if got := rowsOf(t, c, "SELECT try, r FROM got ORDER BY r, try"); len(got) != 2*(txn+1) {
				t.Fatalf("%s: rows %v", mode, got)
			}
			if got := rowsOf(t, c, fmt.Sprintf("SELECT count(*) FROM got WHERE r = %d", r)); !reflect.DeepEqual(got, []string{"2"}) {
				t.Errorf("%s: transaction %d: %v rows with r = %d, want 2 (the retry drew other values)", mode, txn, got, r)
			}
		}
	}
}

func TestPipelines(t *testing.T) {
	tg := database(t)
	c := connect(t, tg)
	exec(t, c, "CREATE TABLE p (k int PRIMARY KEY, v int)")
	text := `\set k random(1, 1000000)
\startpipeline
BEGIN;
INSERT INTO p VALUES (:k, 1);
UPDATE p SET v = v + 1 WHERE k = :k;
END;
\syncpipeline
SELECT v FROM p WHERE k = :k;
\endpipeline
SELECT 1 AS one \gset
`
	for _, mode := range []target.QueryMode{target.QueryExtended, target.QueryPrepared} {
		exec(t, c, "TRUNCATE p")
		cl, _, _, err := run(t, tg, mode, text)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		k, _ := cl.Variable("k")
		if got := rowsOf(t, c, "SELECT v FROM p WHERE k = "+k); !reflect.DeepEqual(got, []string{"2"}) {
			t.Errorf("%s: %v", mode, got)
		}
	}
	// An error in a pipeline fails the transaction; nothing is left open.
	exec(t, c, "INSERT INTO p VALUES (0, 0)")
	_, c2, _, err := run(t, tg, target.QueryPrepared, "\\startpipeline\nBEGIN;\nINSERT INTO p VALUES (0, 0);\nEND;\n\\endpipeline\n")
	var se *interp.SQLError
	if !errors.As(err, &se) || errors.Is(err, workload.ErrAbortClient) || c2.InTransaction() || c2.InPipeline() {
		t.Errorf("duplicate key in a pipeline: %v (in transaction %v, pipeline %v)", err, c2.InTransaction(), c2.InPipeline())
	}
}

func TestDebug(t *testing.T) {
	tg := database(t)
	_, _, out, err := run(t, tg, target.QuerySimple, "\\set a 1\n\\set b debug(:a + 2)\n\\set c debug(1.5)\n\\set d debug(:a = 1)\n\\set e debug(NULL)\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "debug(script=0,command=2): int 3\ndebug(script=0,command=3): double 1.5\ndebug(script=0,command=4): boolean true\ndebug(script=0,command=5): null\n"
	if out != want {
		t.Errorf("debug output\n%s\nwant\n%s", out, want)
	}
}

// TestSimpleSubstitution: simple mode substitutes text, leaving unknown
// variables and casts alone; extended mode sends NULL for an unknown one.
func TestSimpleSubstitution(t *testing.T) {
	tg := database(t)
	text := "\\set n 41\nSELECT :n + 1 AS a, '1'::int AS c, :undefined::text IS NULL AS d \\gset\n"
	cl, _, _, err := run(t, tg, target.QueryExtended, text)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := vars(cl, "a", "c", "d"), "a=42 c=1 d=t"; got != want {
		t.Errorf("extended: %s, want %s", got, want)
	}
	text = "\\set n 41\nSELECT :n + 1 AS a, ':n' AS b, '1'::int AS c, ':undefined' AS d \\gset\n"
	cl, _, _, err = run(t, tg, target.QuerySimple, text)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := vars(cl, "a", "b", "c", "d"), "a=42 b=41 c=1 d=:undefined"; got != want {
		t.Errorf("simple: %s, want %s", got, want)
	}
}

// TestSQLite runs a script with \set, \gset, \aset, \if and a pipeline on
// SQLite.
func TestSQLite(t *testing.T) {
	tg := testutil.Open(t, "sqlite:")
	c := connect(t, tg)
	exec(t, c, "CREATE TABLE s (k INTEGER PRIMARY KEY, v INTEGER)")
	text := `\set k random(1, 1000) + 1000 * :client_id
BEGIN;
INSERT INTO s VALUES (:k, :k * 2);
SELECT v FROM s WHERE k = :k \gset got_
END;
\if :got_v = 2 * :k
\set ok 1
\else
\set ok 0
\endif
SELECT count(*) AS n FROM s \aset
`
	for _, mode := range modes {
		s := parse(t, text)
		cl := interp.NewClient(config(mode, 3, s), int(mode))
		for i := 0; i < 3; i++ {
			cl.Begin()
			if err := cl.Run(context.Background(), c, 0); err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
		}
		if got := vars(cl, "ok"); got != "ok=1" {
			t.Errorf("%s: %s", mode, got)
		}
	}
	if got := rowsOf(t, c, "SELECT count(*) FROM s"); !reflect.DeepEqual(got, []string{"9"}) {
		t.Errorf("rows %v", got)
	}
	cl, _, _, err := run(t, tg, target.QueryExtended, "BEGIN;\nINSERT INTO s VALUES (1, 1);\n")
	_ = cl
	if !errors.Is(err, workload.ErrAbortClient) || !strings.Contains(err.Error(), "end of script reached without completing the last transaction") {
		t.Errorf("open transaction on SQLite: %v", err)
	}
}

// TestSleep: \sleep's units and variable, and a cancelled context cuts it
// short.
func TestSleep(t *testing.T) {
	tg := database(t)
	t0 := time.Now()
	if _, _, _, err := run(t, tg, target.QuerySimple, "\\set d 30\n\\sleep :d ms\n\\sleep 20000 us\n\\sleep -1\n"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("slept %v, want 50ms", d)
	}
	cl := interp.NewClient(config(target.QuerySimple, 1, parse(t, "\\sleep 10\n")), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 = time.Now()
	if err := cl.Run(ctx, connect(t, tg), 0); !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 5*time.Second {
		t.Errorf("cancelled sleep: %v after %v", err, time.Since(t0))
	}
}

// TestVarsBeyondTheSeenCache: more variables than the client remembers
// the slots of (four), named in turn by expressions, each evaluated twice,
// read their own values.
func TestVarsBeyondTheSeenCache(t *testing.T) {
	tg := database(t)
	s := parse(t, `\set a 1
\set b 2
\set c 3
\set d 4
\set e 5
\set f 6
\set s :a + :b * 10 + :c * 100 + :d * 1000 + :e * 10000 + :f * 100000
\set r :f + :e * 10 + :d * 100 + :c * 1000 + :b * 10000 + :a * 100000
`)
	cl := interp.NewClient(config(target.QuerySimple, 1, s), 0)
	c := connect(t, tg)
	for i := range 2 {
		cl.Begin()
		if err := cl.Run(context.Background(), c, 0); err != nil {
			t.Fatal(err)
		}
		if got := vars(cl, "s", "r"); got != "s=654321 r=123456" {
			t.Errorf("run %d: %s, want s=654321 r=123456", i, got)
		}
	}
}
