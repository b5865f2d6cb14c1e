package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// The pgbench emulation's differential tests (its reports, errors, logs
// and -i against PostgreSQL's pgbench) are internal/pgbench/emulate's;
// here is what belongs to the command: its --version and --help from the
// binary, and the script workload through txnbench's own commands.

// TestPgbenchVersionAndHelp compares the binary's `txnbench pgbench
// --pgbench-version 15 --version` and `--help` with PostgreSQL's pgbench
// 15 (the one installed), and the default's, 17's, with what 17 adds.
func TestPgbenchVersionAndHelp(t *testing.T) {
	bin := testutil.Pgbench(t)
	t.Run("version", func(t *testing.T) {
		// pgbench's first word, program and release, then its build
		pout := realPgbench(t, bin, "--version")
		release := regexp.MustCompile(`^pgbench \(PostgreSQL\) [0-9]+\.[0-9]+ `)
		for _, args := range [][]string{{"pgbench", "--pgbench-version", "15", "--version"}, {"pgbench", "-V", "--pgbench-version=15"}} {
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
			out, err := cmd.Output()
			if err != nil || release.FindString(string(out)) != release.FindString(pout) || !strings.Contains(string(out), "(txnbench ") {
				t.Errorf("%v: %q (%v), pgbench %q", args, out, err, pout)
			}
		}
		cmd := exec.Command(os.Args[0], "--version")
		cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
		if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "txnbench ") {
			t.Errorf("txnbench --version: %q (%v)", out, err)
		}
	})

	t.Run("help", func(t *testing.T) {
		// pgbench's sections and options, line for line, up to where
		// pgbench names where to report bugs: txnbench's own options
		// come there, then its address.
		pout := realPgbench(t, bin, "--help")
		if !strings.Contains(pout, "PostgreSQL) 15") && !strings.Contains(realPgbench(t, bin, "--version"), "PostgreSQL) 15") {
			t.Fatalf("%s is not pgbench 15", bin)
		}
		p, _, _ := strings.Cut(pout, "Report bugs to")
		// 17's help is 15's with one line more, after --aggregate-interval
		agg := "  --aggregate-interval=NUM aggregate data over NUM seconds\n"
		p17 := strings.Replace(p, agg, agg+"  --exit-on-abort          exit when any client is aborted\n", 1)
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"pgbench", "--pgbench-version", "15", "--help"}, p},
			{[]string{"pgbench", "--help"}, p17},
			{[]string{"pgbench", "--pgbench-version=17", "-?"}, p17},
		} {
			cmd := exec.Command(os.Args[0], c.args...)
			cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
			out, err := cmd.Output()
			tout := strings.ReplaceAll(string(out), "txnbench pgbench", "pgbench")
			g, own, _ := strings.Cut(tout, "txnbench options:\n")
			if err != nil || g != c.want || c.want == p17 && p17 == p || !strings.Contains(own, "--pgbench-version") || !strings.Contains(own, "Report bugs to") {
				t.Errorf("%v (%v):\n%s\nwant:\n%s", c.args, err, out, c.want)
			}
		}
	})
}

// TestPgbenchExitOnAbort runs pgbench 17's --exit-on-abort through the
// binary on SQLite: the first client to abort ends the run with pgbench
// 17's line naming its thread, exit status 2 and no report; without it,
// the other client runs on and the report ends with the aborted run's
// line. pgbench 15 (--pgbench-version 15) refuses the option as getopt
// does, and -i refuses it as a benchmarking option.
func TestPgbenchExitOnAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "abort.sql")
	// client 1 (thread 1 of -j 2) aborts in its first transaction
	os.WriteFile(script, []byte("\\if :client_id = 1\n\\set x 1 / 0\n\\endif\nSELECT 1;\n"), 0o644)
	db := "sqlite:" + filepath.Join(dir, "a.db")
	run := []string{"pgbench", "-n", "-c", "2", "-j", "2", "-t", "50", "-f", script, "--db", db}

	code, out, stderr := clitest.Run(append(run, "--exit-on-abort")...)
	if code != 2 || !strings.Contains(stderr, "pgbench: error: Run was aborted due to an error in thread 1\n") ||
		!strings.Contains(stderr, "client 1 aborted") || strings.Contains(out, "number of transactions actually processed") ||
		strings.Contains(stderr, "the above results are incomplete") {
		t.Errorf("--exit-on-abort: exit %d, want 2, pgbench 17's line and no report\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = clitest.Run(run...)
	if code != 2 || !strings.Contains(out, "number of transactions actually processed: 50/100") ||
		!strings.Contains(stderr, "Run was aborted; the above results are incomplete.") || strings.Contains(stderr, "due to an error in thread") {
		t.Errorf("without --exit-on-abort: exit %d, want 2 and client 0's 50 transactions reported\n%s\n%s", code, out, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(run, "--exit-on-abort", "--pgbench-version", "15"), "pgbench: unrecognized option '--exit-on-abort'\n"},
		{append(run, "--exit-on", "--pgbench-version=15"), "pgbench: unrecognized option '--exit-on'\n"},
		{[]string{"pgbench", "-i", "--exit-on-abort", "--db", db}, "pgbench: error: some of the specified options cannot be used in initialization (-i) mode\n"},
		{append(run, "--exit-on-abort", "--pgbench-version", "16"), "pgbench: error: invalid --pgbench-version \"16\": choose 15 or 17\n"},
	} {
		code, out, stderr := clitest.Run(c.args...)
		if code != 1 || out != "" || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, want 1 and %q\n%s\n%s", c.args, code, c.want, out, stderr)
		}
	}
}

// realPgbench is what PostgreSQL's pgbench at bin prints on stdout with
// args (in the C locale).
func realPgbench(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("running pgbench: %v", err)
	}
	return string(out)
}

// TestRunScript runs the script workload with txnbench's own flags.
func TestRunScript(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	dir := t.TempDir()
	custom := filepath.Join(dir, "c.sql")
	os.WriteFile(custom, []byte("\\set x random(1, 1000)\nSELECT :x;\n"), 0o644)
	cases := [][]string{
		{"run", "script", "-b", "tpcb-like", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--iterations", "20", "--clients", "2"},
		{"run", "script", "-b", "tpcb-like@2", "-b", "select-only@1", "--db", "temp-postgres", "--conn", "pool", "--iterations", "20", "--clients", "4"},
		{"run", "script", "-f", custom, "-D", "y=3", "-M", "prepared", "--db", "sqlite:" + filepath.Join(dir, "c.db"), "--iterations", "10"},
		{"study", "script", "-b", "select-only", "--db", "sqlite:" + filepath.Join(dir, "st.db"), "--vary", "clients=1,2", "--iterations", "5", "--settle", "0s", "--out", filepath.Join(dir, "st")},
	}
	for _, args := range cases {
		code, out, stderr := clitest.Run(args...)
		if code != exitcode.OK {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, stderr)
			continue
		}
		if args[0] == "run" && args[2] == "-b" && !strings.Contains(out, "invariants: OK") {
			t.Errorf("%v: no invariants:\n%s", args, out)
		}
		if args[0] == "study" && !strings.Contains(out+stderr, "clients=2") {
			t.Errorf("%v: output:\n%s\n%s", args, out, stderr)
		}
	}
}

// TestPgbenchCustomScriptOnTempPostgres: a throwaway server gets pgbench's
// tables at -s for custom scripts too, unless --no-init (issue 12).
func TestPgbenchCustomScriptOnTempPostgres(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	mix := filepath.Join(t.TempDir(), "mix.sql")
	os.WriteFile(mix, []byte("\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o644)

	code, out, stderr := clitest.Run("pgbench", "--db", "temp-postgres", "-s", "1", "-f", mix, "-t", "5")
	if code != 0 || !strings.Contains(out, "number of transactions actually processed: 5/5") {
		t.Errorf("pgbench -f on temp-postgres: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = clitest.Run("pgbench", "--db", "temp-postgres", "--no-init", "-f", mix, "-t", "1")
	if code != 2 || !strings.Contains(stderr, `relation "pgbench_accounts" does not exist`) {
		t.Errorf("--no-init: exit %d, want 2 and the missing table\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = clitest.Run("run", "script", "-f", mix, "--db", "temp-postgres", "--iterations", "5")
	if code != 0 || strings.Contains(stderr, "using the existing") || !strings.Contains(stderr, "creating the pgbench tables at scale 1") {
		t.Errorf("run script on temp-postgres: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestPgbenchOnSQLiteVacuumsQuietly: `txnbench pgbench` on SQLite runs
// pgbench's pre-run vacuum in SQLite's words (ANALYZE, DELETE for
// TRUNCATE), and txnbench's own builtins (ycsb-b), which do not use
// pgbench's tables, skip it: neither output holds an SQL error. Before,
// both printed "unknown database pgbench_branches" and a syntax error
// near "truncate" ahead of their reports.
func TestPgbenchOnSQLiteVacuumsQuietly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tpcb := "sqlite:" + filepath.Join(dir, "tpcb.db")
	clitest.MustRun(t, "pgbench", "-i", "-s", "1", "--db", tpcb)
	for _, args := range [][]string{
		{"pgbench", "-b", "ycsb-b", "-D", "record_count=200", "--db", "sqlite:" + filepath.Join(dir, "ycsb.db"), "-t", "20"},
		{"pgbench", "-b", "tpcb-like", "-v", "--db", tpcb, "-t", "20"},
	} {
		code, out, stderr := clitest.Run(args...)
		if code != exitcode.OK || !strings.Contains(out, "invariants: OK") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, stderr)
		}
		for _, bad := range []string{"error", "pgbench_branches", "truncate"} {
			if strings.Contains(out+stderr, bad) {
				t.Errorf("%v: output holds %q:\n%s\n%s", args, bad, out, stderr)
			}
		}
	}
}
