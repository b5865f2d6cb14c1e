package scripts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestScriptServerTime: `run script` tags each script's statements, so
// each script gets the server's time per transaction (the sum of its
// statements' time in pg_stat_statements), above zero and at most its
// client latency, in every protocol, and the table shows it.
func TestScriptServerTime(t *testing.T) {
	t.Parallel()
	url := pgbenchDatabase(t)
	dir := t.TempDir()
	write := func(name, text string) string { return testutil.WriteFile(t, dir, name, text) }
	wr := write("wr.sql", "\\set aid random(1, 100000)\n\\set delta random(-5000, 5000)\nBEGIN;\n"+
		"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"+
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\nEND;\n")
	rd := write("rd.sql", "\\set aid random(1, 100000)\n"+
		"SELECT a.abalance, b.bbalance FROM pgbench_accounts a JOIN pgbench_branches b USING (bid) WHERE a.aid = :aid;\n")
	for _, mode := range []string{"simple", "extended", "prepared"} {
		out := filepath.Join(dir, mode+".json")
		stdout, _ := clitest.MustRun(t, "run", "script", "--db", url, "-f", wr+"@3", "-f", rd+"@1",
			"--protocol", mode, "--clients", "2", "--duration", "1s", "--json", out)
		if !strings.Contains(stdout, "server(ms)") {
			t.Errorf("%s: no server(ms) column:\n%s", mode, stdout)
		}
		r := clitest.LoadResult(t, out)
		for _, name := range []string{"wr.sql", "rd.sql"} {
			o := r.Op(name)
			if o == nil || o.Count == 0 {
				t.Fatalf("%s: no transactions of %s", mode, name)
			}
			if o.ServerMS <= 0 || o.ServerMS > o.Mean {
				t.Errorf("%s: %s server %.4f ms, client mean %.4f ms", mode, name, o.ServerMS, o.Mean)
			}
		}
		tagged := map[string]int{}
		for _, st := range r.Telemetry.Statements {
			tagged[st.Op]++
		}
		// wr.sql: BEGIN, UPDATE, SELECT, END; rd.sql: SELECT
		if tagged["wr.sql"] != 4 || tagged["rd.sql"] != 1 {
			t.Errorf("%s: statements by script %v", mode, tagged)
		}
	}
}

// pgbenchDatabase is a database of the test's own on the package's
// shared cluster, with pgbench's tables at scale 1 and pg_stat_statements:
// for runs of scripts that look at the server's time (telemetry reads the
// run database's statements); temp-postgres runs of scripts are
// TestPgbenchCustomScriptOnTempPostgres's.
func pgbenchDatabase(t *testing.T) string {
	t.Helper()
	url := testutil.SharedPostgres(t)
	testutil.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	if code, out, stderr := clitest.Run("pgbench", "-i", "-s", "1", "-q", url); code != 0 {
		t.Fatalf("pgbench -i: exit %d\n%s\n%s", code, out, stderr)
	}
	return url
}

// TestScriptStudyServerGap: a study of a script over a client ladder
// writes the client-vs-server gap of each rung into study.md.
func TestScriptStudyServerGap(t *testing.T) {
	t.Parallel()
	url := pgbenchDatabase(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "rd.sql")
	if err := os.WriteFile(script, []byte("\\set aid random(1, 100000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "study")
	stdout, stderr := clitest.MustRun(t, "study", "script", "--db", url, "-f", script, "--duration", "1s",
		"--settle", "0", "--vary", "clients=1,2", "--out", out)
	md := clitest.Read(t, filepath.Join(out, "study.md"))
	_, table, ok := strings.Cut(string(md), "## client vs server")
	if !ok {
		t.Fatalf("no client vs server table in study.md:\n%s", md)
	}
	for _, rung := range []string{"| clients=1 | rd.sql |", "| clients=2 | rd.sql |"} {
		if !strings.Contains(table, rung) {
			t.Errorf("no row %q in:\n%s", rung, table)
		}
	}
	// txnbench report renders the saved study again, the table included
	code, stdout, stderr := clitest.Run("report", out)
	if code != exitcode.OK || stdout != string(md) {
		t.Errorf("report: exit %d, output differs from study.md\n%s\n%s", code, stdout, stderr)
	}
}

// TestPgbenchSendsNoTags: `txnbench pgbench` sends the script's SQL as
// pgbench does, without the op tags `run script` adds.
func TestPgbenchSendsNoTags(t *testing.T) {
	t.Parallel()
	url := testutil.SharedPostgres(t)
	ctx := context.Background()
	// The session is opened again only after the runs: one left open
	// would make each run's telemetry wait up to 3 s for it to end.
	_, c, done := testutil.Conn(t, url)
	_, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	done()
	if err != nil {
		t.Skipf("no pg_stat_statements: %v", err)
	}
	mix := filepath.Join(t.TempDir(), "mix.sql")
	os.WriteFile(mix, []byte("\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o644)
	if code, out, stderr := clitest.Run("pgbench", "-i", "-s", "1", url); code != 0 {
		t.Fatalf("pgbench -i: exit %d\n%s\n%s", code, out, stderr)
	}
	if code, out, stderr := clitest.Run("pgbench", "-f", mix, "-t", "5", "-M", "prepared", url); code != 0 {
		t.Fatalf("pgbench -f: exit %d\n%s\n%s", code, out, stderr)
	}
	_, c, done = testutil.Conn(t, url)
	defer done()
	// the statements of this test's database: the cluster is the
	// package's, and other tests' runs tag theirs
	count := func(like string) int64 {
		var n int64
		q := "SELECT count(*) FROM pg_stat_statements WHERE query LIKE $1 AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
		if err := target.QueryRow(ctx, c, q, []any{like}, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("%FROM pgbench_accounts WHERE aid%"); n == 0 {
		t.Fatal("the script's statement is not in pg_stat_statements")
	}
	if n := count("%txnbench op=%"); n != 0 {
		t.Errorf("%d statements carry an op tag", n)
	}
}
