package emulate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/pgbench/emulate"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// The differential tests run PostgreSQL's pgbench and `txnbench pgbench`
// (through Main, as the command does) with the same options on one
// throwaway server and compare what can be compared: the report's lines
// (their keys always, their numbers where they are deterministic), the
// values scripts produce for one --random-seed, the error messages and the
// exit codes, and the log formats. The command's own --version and --help
// are compared in internal/cli (TestPgbenchVersionAndHelp).

// pgbenchEnv is a database of its own, with pgbench's tables at scale 1,
// on the package's shared cluster.
type pgbenchEnv struct {
	bin string
	url string
	dir string // scripts and logs
	// anyDir runs txnbench in the process's directory, not in dir.
	anyDir bool
}

// pgbenchTables is the database pgbench -i filled once, which each
// pgbenchEnv copies: the tests change only their copies.
var pgbenchTables struct {
	once sync.Once
	url  string
}

func newPgbenchEnv(t *testing.T) *pgbenchEnv {
	t.Helper()
	bin := testutil.Pgbench(t)
	pgbenchTables.once.Do(func() {
		e := &pgbenchEnv{bin: bin, url: testutil.LibpqURL(testutil.SharedPostgres(t)), dir: t.TempDir()}
		if code, _, stderr := e.pgbench(t, "-i", "-s", "1", "-q", e.url); code != 0 {
			t.Fatalf("pgbench -i: exit %d\n%s", code, stderr)
		}
		pgbenchTables.url = e.url
	})
	if pgbenchTables.url == "" {
		t.Fatal("pgbench -i failed in an earlier test")
	}
	return &pgbenchEnv{bin: bin, url: testutil.SharedPostgresCopy(t, pgbenchTables.url), dir: t.TempDir()}
}

// pgbench runs the real pgbench in dir e.dir.
func (e *pgbenchEnv) pgbench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PGBENCH_RANDOM_SEED=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("running pgbench: %v", err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// txnbench runs `txnbench pgbench` in-process through Main, as the
// command does, in dir e.dir; with e.anyDir in whatever directory the
// process is in: a parallel test, whose runs name every file by its full
// path, cannot change the process's directory under the other tests.
func (e *pgbenchEnv) txnbench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if !e.anyDir {
		wd, _ := os.Getwd()
		if err := os.Chdir(e.dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
	}
	var out, errb bytes.Buffer
	// the installed pgbench is 15's: follow it (the default is 17's)
	args = append([]string{"--pgbench-version=15"}, args...)
	code = emulate.Main(context.Background(), args, emulate.Env{Stdout: &out, Stderr: &errb,
		Args: append([]string{"txnbench", "pgbench"}, args...), Version: "test", Redact: target.MaskURL,
		CheckOutFile: dirExists})
	return code, out.String(), errb.String()
}

// dirExists stands in for the command's check of an output file (the
// command's own is tested in internal/cli: TestBadInputIsRefused): it
// refuses a file whose directory is missing or not a directory.
func dirExists(flag, path string) error {
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, filepath.Dir(path))
	}
	return nil
}

func (e *pgbenchEnv) write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// exec runs sql on a session of its own, closed at once: a session left
// open would make each later txnbench run wait for it to end (telemetry
// waits up to 3 s for the database's other sessions before its baseline).
func (e *pgbenchEnv) exec(t *testing.T, sql string) {
	t.Helper()
	testutil.Exec(t, e.url, sql)
}

// rows is the text of the first column of sql's rows, read on a session
// of its own, closed at once.
func (e *pgbenchEnv) rows(t *testing.T, sql string) []string {
	t.Helper()
	_, c, done := testutil.Conn(t, e.url)
	defer done()
	rs, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

var tpsRE = regexp.MustCompile(`tps = [0-9.]+`)

var numberRE = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?|NaN`)

// reportKey is what a report line says, without its numbers: the text
// before " = " or ": " (or the whole line, numbers masked).
func reportKey(line string) string {
	k := line
	if i := strings.Index(k, " = "); i >= 0 {
		k = k[:i]
	} else if i := strings.Index(k, ": "); i >= 0 && !strings.HasPrefix(strings.TrimSpace(k), "0") && !numberRE.MatchString(k[:1]) {
		k = k[:i]
	}
	return strings.Join(strings.Fields(numberRE.ReplaceAllString(k, "N")), " ")
}

// reportLines drops what only one of the two prints: the version line,
// txnbench's percentiles and invariant checks.
func reportLines(out string) []string {
	var lines []string
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case i == 0 && strings.HasPrefix(l, "pgbench ("),
			strings.HasPrefix(l, "latency percentiles:"),
			strings.HasPrefix(l, "invariants:"),
			strings.HasPrefix(l, "  ok  "), strings.HasPrefix(l, "  FAIL"):
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// deterministic are the report lines whose numbers must be equal too.
var deterministic = []string{
	"transaction type", "scaling factor", "query mode", "number of clients", "number of threads",
	"maximum number of tries", "number of transactions per client", "duration",
	"number of failed transactions", "number of serialization failures", "number of deadlock failures",
	"number of transactions retried", "total number of retries", "SQL script", " - weight",
	" - number of failed transactions", "statement latencies",
}

func compareReports(t *testing.T, want, got string, extra ...string) {
	t.Helper()
	wl, gl := reportLines(want), reportLines(got)
	var wk, gk []string
	for _, l := range wl {
		wk = append(wk, reportKey(l))
	}
	for _, l := range gl {
		gk = append(gk, reportKey(l))
	}
	if strings.Join(wk, "\n") != strings.Join(gk, "\n") {
		t.Errorf("report lines differ:\npgbench:\n%s\ntxnbench:\n%s", want, got)
		return
	}
	for i := range wl {
		for _, p := range append(extra, deterministic...) {
			if strings.HasPrefix(wl[i], p) && tpsRE.ReplaceAllString(wl[i], "") != tpsRE.ReplaceAllString(gl[i], "") {
				t.Errorf("line %d: pgbench %q, txnbench %q", i, wl[i], gl[i])
			}
		}
	}
}

// progressKey masks a -P line's numbers.
func firstProgress(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "progress: ") {
			return numberRE.ReplaceAllString(l, "N")
		}
	}
	return ""
}

func TestPgbenchDifferential(t *testing.T) {
	e := newPgbenchEnv(t)
	a := e.write(t, "a.sql", "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n")
	b := e.write(t, "b.sql", "\\set x random(1, 10)\nSELECT :x;\n\\sleep 1 ms\n")

	t.Run("report", func(t *testing.T) {
		cases := []struct {
			args  []string
			extra []string // more lines that must be equal
		}{
			{[]string{"-t", "20"}, []string{"number of transactions actually processed"}},
			{[]string{"-v", "-S", "-t", "5"}, []string{"number of transactions actually processed"}},
			{[]string{"-S", "-T", "2", "-P", "1", "-c", "2", "-j", "2"}, nil},
			{[]string{"-N", "-r", "-t", "5"}, []string{"number of transactions actually processed"}},
			{[]string{"-f", a + "@3", "-f", b + "@1", "-r", "-t", "20", "-c", "2", "--random-seed", "42"},
				[]string{"number of transactions actually processed", " - 1", " - 2", " - 3", " - 4", " - 5", " - 6", " - 7", " - 8", " - 9"}},
			{[]string{"-R", "200", "-L", "1000", "-t", "10"}, []string{"number of transactions actually processed", "number of transactions skipped"}},
			{[]string{"--max-tries", "3", "--failures-detailed", "-t", "10"}, []string{"number of transactions actually processed"}},
			{[]string{"-C", "-t", "5", "-c", "2"}, []string{"number of transactions actually processed"}},
			{[]string{"-M", "prepared", "-r", "-t", "10"}, []string{"number of transactions actually processed"}},
			{[]string{"-M", "extended", "-S", "-t", "10"}, []string{"number of transactions actually processed"}},
			{[]string{"-n", "-f", b, "-t", "3", "--max-tries", "0", "-L", "100"}, []string{"number of transactions actually processed"}},
		}
		for _, c := range cases {
			args := append(c.args, e.url)
			pc, pout, perr := e.pgbench(t, args...)
			tc, tout, terr := e.txnbench(t, args...)
			name := strings.Join(c.args, " ")
			if pc != tc {
				t.Errorf("%s: exit %d, pgbench %d\n%s\n%s", name, tc, pc, terr, perr)
				continue
			}
			compareReports(t, pout, tout, c.extra...)
			if p, g := firstProgress(perr), firstProgress(terr); p != g && p != "" {
				t.Errorf("%s: progress line %q, pgbench %q", name, g, p)
			}
			for _, v := range []string{"starting vacuum...end.", "starting vacuum pgbench_accounts...end."} {
				if strings.Contains(perr, v) != strings.Contains(terr, v) {
					t.Errorf("%s: vacuum line differs:\npgbench %q\ntxnbench %q", name, perr, terr)
				}
			}
			if strings.Contains(perr, "setting random seed") && !strings.Contains(terr, "pgbench: setting random seed to 42") {
				t.Errorf("%s: stderr lacks the random seed line: %q", name, terr)
			}
		}
	})

	t.Run("latency average from the run time", func(t *testing.T) {
		// Without -P, -R or -L pgbench prints clients/tps, not the mean of
		// the measured latencies (with -C the two differ by the connections).
		_, out, _ := e.txnbench(t, "-C", "-t", "5", "-c", "2", e.url)
		var lat, tps float64
		for _, l := range strings.Split(out, "\n") {
			fmt.Sscanf(l, "latency average = %f ms", &lat)
			fmt.Sscanf(l, "tps = %f", &tps)
		}
		if tps == 0 || abs(lat-2000/tps) > 0.01*lat {
			t.Errorf("latency average %.3f ms, want clients/tps = %.3f:\n%s", lat, 2000/tps, out)
		}
	})

	t.Run("random values", func(t *testing.T) {
		e.exec(t, "CREATE TABLE vals (tbl text, client int, n int, a bigint, g bigint, z bigint, x bigint, h bigint, p bigint, m bigint, f bigint, d float8, rs text, ds bigint)")
		s := e.write(t, "vals.sql", `\set n :n + 1
\set a random(1, 1000)
\set g random_gaussian(1, 1000, 2.5)
\set z random_zipfian(1, 1000, 1.5)
\set x random_exponential(1, 1000, 3.0)
\set h hash(:a)
\set p permute(:a, 1000)
\set m hash_murmur2(:a, 5)
\set f hash_fnv1a(:a)
\set d sqrt(:a) * pi()
\if :a % 2 = 0
\set a :a * -1
\endif
INSERT INTO vals VALUES (':who', :client_id, :n, :a, :g, :z, :x, :h, :p, :m, :f, :d, :random_seed, :default_seed);
`)
		for _, j := range []string{"1", "3"} {
			args := []string{"-n", "-f", s, "-c", "3", "-j", j, "-t", "10", "--random-seed", "1234", "-D", "n=0"}
			pc, _, perr := e.pgbench(t, append(args, "-D", "who=pg"+j, e.url)...)
			tc, _, terr := e.txnbench(t, append(args, "-D", "who=tb"+j, e.url)...)
			if pc != 0 || tc != 0 {
				t.Fatalf("-j %s: exit pgbench %d txnbench %d\n%s\n%s", j, pc, tc, perr, terr)
			}
			q := func(who string) []string {
				return e.rows(t, fmt.Sprintf(`SELECT concat_ws(' ', client, n, a, g, z, x, h, p, m, f, round(d::numeric, 9), rs, ds) FROM vals WHERE tbl = '%s' ORDER BY client, n`, who))
			}
			pg, tb := q("pg"+j), q("tb"+j)
			if len(pg) != 30 || strings.Join(pg, "\n") != strings.Join(tb, "\n") {
				t.Errorf("-j %s: values differ:\npgbench:\n%s\ntxnbench:\n%s", j, strings.Join(pg, "\n"), strings.Join(tb, "\n"))
			}
		}
	})

	t.Run("shell and debug", func(t *testing.T) {
		s := e.write(t, "sh.sql", "\\set x random(1, 100)\n\\shell echo shell :x x=:x\n\\set y debug(:x)\n\\setshell z echo 5\nSELECT :z;\n")
		args := []string{"-n", "-f", s, "-t", "2", "--random-seed", "3", e.url}
		_, pout, perr := e.pgbench(t, args...)
		_, tout, terr := e.txnbench(t, args...)
		pick := func(s, prefix string) []string {
			var out []string
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, prefix) {
					out = append(out, l)
				}
			}
			return out
		}
		if p, g := pick(pout+perr, "shell "), pick(tout+terr, "shell "); len(p) != 2 || fmt.Sprint(p) != fmt.Sprint(g) {
			t.Errorf("\\shell output %q, pgbench %q", g, p)
		}
		if p, g := pick(pout, "shell "), pick(tout, "shell "); fmt.Sprint(p) != fmt.Sprint(g) {
			t.Errorf("\\shell output on stdout %q, pgbench's %q", g, p)
		}
		if p, g := pick(perr, "debug("), pick(terr, "debug("); len(p) != 2 || fmt.Sprint(p) != fmt.Sprint(g) {
			t.Errorf("debug() output %q, pgbench %q", g, p)
		}
	})

	t.Run("numbers", func(t *testing.T) {
		// issue 12: a transaction block left open counts the transaction,
		// then aborts the client; retried transactions and retries agree;
		// a percentage of nothing is pgbench's NaN only when strict.
		e.exec(t, `CREATE SEQUENCE retry_seq; CREATE FUNCTION fail_odd() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF nextval('retry_seq') % 2 = 1 THEN RAISE EXCEPTION 'retry me' USING ERRCODE = 'serialization_failure'; END IF;
  RETURN 1;
END $$`)
		open := e.write(t, "open.sql", "BEGIN;\nSELECT 1;\n")
		retry := e.write(t, "retry.sql", "SELECT fail_odd();\n")
		div := e.write(t, "div0.sql", "SELECT 1/0;\n")
		cases := [][]string{
			{"-n", "-f", open, "-t", "10"},
			{"-n", "-f", retry, "-t", "3", "--max-tries", "2", "--failures-detailed"},
			{"-n", "-f", retry, "-f", open, "-t", "1", "--max-tries", "3", "--random-seed", "5"},
			{"-n", "-r", "-f", retry, "-f", open, "-t", "1", "--max-tries", "3", "--random-seed", "5"},
			{"-n", "-f", div, "-t", "2", "--max-tries", "2", "--failures-detailed", "-R", "100", "-L", "50"},
			// --verbose-errors: each serialization error, retried or not
			{"-n", "--verbose-errors", "-f", retry, "-t", "3", "--max-tries", "2"},
			{"-n", "--verbose-errors", "-f", retry, "-t", "2"},
		}
		for _, c := range cases {
			name := strings.Join(c, " ")
			args := append(append([]string{}, c...), e.url)
			e.exec(t, "SELECT setval('retry_seq', 2, false)")
			pc, pout, perr := e.pgbench(t, args...)
			e.exec(t, "SELECT setval('retry_seq', 2, false)")
			tc, tout, terr := e.txnbench(t, append([]string{"--pgbench-output=strict"}, args...)...)
			if pc != tc {
				t.Errorf("%s: exit %d, pgbench %d\n%s\n%s", name, tc, pc, terr, perr)
			}
			if p, g := errLines(perr), errLines(terr); p != g {
				t.Errorf("%s: stderr differs:\npgbench:\n%s\ntxnbench:\n%s", name, p, g)
			}
			compareReports(t, pout, tout, "number of transactions actually processed", "number of transactions skipped")
			if strings.Contains(tout, "percentiles") {
				t.Errorf("%s: strict output has txnbench's percentiles:\n%s", name, tout)
			}
			_, tout, _ = e.txnbench(t, args...)
			if strings.Contains(tout, "NaN") {
				t.Errorf("%s: NaN in the report:\n%s", name, tout)
			}
		}
	})

	t.Run("debug", func(t *testing.T) {
		// --debug's lines, once each: pgbench prints "receiving" as
		// often as its socket wakes it
		cond := e.write(t, "cond.sql", "\\set x 1\n\\if :x = 1\nSELECT 1;\n\\else\nSELECT 2;\n\\endif\n\\sleep 1 ms\n")
		for _, c := range [][]string{
			{"-d", "-n", "-S", "-t", "2", "-c", "2", "--random-seed", "7"},
			{"-d", "-n", "-M", "prepared", "-S", "-T", "1", "--random-seed", "7"},
			{"-d", "-n", "-M", "extended", "-f", cond, "-t", "1"},
		} {
			args := append(append([]string{}, c...), e.url)
			_, _, perr := e.pgbench(t, args...)
			_, _, terr := e.txnbench(t, args...)
			if p, g := debugLines(perr), debugLines(terr); p != g {
				t.Errorf("%v: --debug lines differ:\npgbench:\n%s\ntxnbench:\n%s", c, p, g)
			}
		}
	})

	t.Run("PGBENCH_RANDOM_SEED", func(t *testing.T) {
		// pgbench reads it before its options, and says so; then
		// --random-seed again
		for _, c := range []struct {
			seed string
			args []string
		}{
			{"x", []string{"-c", "0"}}, {"", []string{"-c", "0"}}, {"5", []string{"-c", "0"}},
			{"5", []string{"--random-seed=6", "-c", "0"}}, {"5", []string{"-c", "0", "--random-seed=6"}},
			{"7", []string{"-n", "-S", "-t", "1"}},
		} {
			args := append(append([]string{}, c.args...), e.url)
			cmd := exec.Command(e.bin, args...)
			cmd.Env = append(os.Environ(), "PGBENCH_RANDOM_SEED="+c.seed, "LC_ALL=C")
			var perr bytes.Buffer
			cmd.Stderr = &perr
			cmd.Run()
			t.Setenv("PGBENCH_RANDOM_SEED", c.seed)
			tc, _, terr := e.txnbench(t, args...)
			if pc := cmd.ProcessState.ExitCode(); pc != tc || perr.String() != terr {
				t.Errorf("PGBENCH_RANDOM_SEED=%s %v: exit %d, pgbench %d\n%s\npgbench:\n%s", c.seed, c.args, tc, pc, terr, perr.String())
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		syn := e.write(t, "syn.sql", "\\set x 1 +\nSELECT 1;\n")
		div := e.write(t, "div.sql", "\\set x 1 / 0\n")
		sqldiv := e.write(t, "sqldiv.sql", "SELECT 1/0;\n")
		badsql := e.write(t, "badsql.sql", "SELECT 1;\nSELECT 1,\n  FROM nowhere;\n")
		badparam := e.write(t, "badparam.sql", "SELECT :v::smallint;\n")
		// libpq cuts a long line around the error, and shows tabs as spaces
		longsql := e.write(t, "long.sql", "SELECT\taaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd, eeeeeeeeee, ffffffffff, gggggggggg, hhhhhhhhhh FROM FROM x;\n")
		longearly := e.write(t, "longearly.sql", "SELECT 1 +, aaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd, eeeeeeeeee, ffffffffff, gggggggggg;\n")
		longmid := e.write(t, "longmid.sql", "SELECT aaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd, eeeeeeeeee, ffffffffff, gggggggggg, hhhhhhhhhh, iiiiiiiiii, jjjjjjjjjj FROM FROM x, kkkkkkkkkk, llllllllll, mmmmmmmmmm, nnnnnnnnnn;\n")
		// the systematic sweep (issue 12): scripts pgbench refuses while reading them
		empty := e.write(t, "empty.sql", "")
		comment := e.write(t, "comment.sql", "-- only a comment\n")
		unkmeta := e.write(t, "unkmeta.sql", "\\nosuch\n")
		badsleep := e.write(t, "badsleep.sql", "\\sleep 1 xs\n")
		openif := e.write(t, "openif.sql", "\\if 1\nSELECT 1;\n")
		endif := e.write(t, "endif.sql", "\\endif\n")
		elsef := e.write(t, "else.sql", "\\else\n")
		setshell := e.write(t, "setshell.sql", "\\setshell\n")
		setx := e.write(t, "setx.sql", "\\set x\n")
		var vars []string
		for i := range 300 {
			vars = append(vars, fmt.Sprintf(":v%d", i))
		}
		manyargs := e.write(t, "manyargs.sql", "SELECT "+strings.Join(vars, ", ")+";\n")
		bad := map[string]string{}
		for name, text := range map[string]string{
			"gsetfirst": "\\gset\n", "sleepx": "\\sleep x\n", "sleepf": "\\sleep 1.5 ms\n", "sleep0": "\\sleep\n",
			"sleep3": "\\sleep 1 ms 2\n", "set2": "\\set x 1 2\n", "shell0": "\\shell\n", "if0": "\\if\n\\endif\n",
			"elif": "\\elif 1\n", "aset": "SELECT 1 \\aset\n\\aset\n", "gauss": "\\set x random_gaussian(1, 10, 1)\n",
			"select": "SELECT 1;\n", "endpipe": "\\endpipeline\n", "pipe": "\\startpipeline\nSELECT 1;\n\\endpipeline\n",
			"sync":   "\\startpipeline\nSELECT 1;\n\\SyncPipeline\n\\endpipeline\n",
			"manyfn": "\\set x greatest(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21)\n",
		} {
			bad[name] = e.write(t, name+".sql", text)
		}
		cases := [][]string{
			{"-c", "0"}, {"-c", "x"}, {"-j", "0"}, {"-t", "0"}, {"-T", "0"}, {"-P", "0"}, {"-s", "0"},
			{"-R", "0"}, {"-R", "x"}, {"-L", "x"}, {"--max-tries", "-1"}, {"--aggregate-interval", "0"},
			{"--aggregate-interval", "1"}, {"--sampling-rate", "2", "-l"}, {"-T", "1", "-t", "1"},
			{"--max-tries", "0"}, {"-M", "bogus"}, {"-D", "x"}, {"-f", "/nonexistent.sql"},
			{"-b", "nosuch"}, {"--random-seed", "x"}, {"-F", "5"}, {"-i", "-I", "x"}, {"-i", "-c", "2"},
			{"-l", "--aggregate-interval", "2", "-T", "3"}, {"--progress-timestamp"},
			{"--nosuch"}, {"-z"}, {"-t"},
			{"-f", syn}, {"-n", "-f", div, "-t", "2"}, {"-n", "-f", sqldiv, "-t", "2", "-c", "2"},
			{"-b", "list"}, {"--show-script=tpcb"},
			{"-t", "1", testutil.DatabaseURL(t, e.url, "template1")},
			// a custom script on a database without pgbench's tables: the vacuum's errors
			{"-f", bad["select"], "-t", "1", testutil.DatabaseURL(t, e.url, "template1")},
			{"-v", "-f", bad["select"], "-t", "1", testutil.DatabaseURL(t, e.url, "template1")},
			// issue 12: refused before connecting, as pgbench refuses them
			{"-n", "-b", "se@0", "-b", "si@0", "-b", "tpcb@0", "-T", "2"}, {"-b", "se@0", "x"},
			{"-S", "-F", "90"}, {"-I", "dtg"}, {"-N", "--foreign-keys"}, {"-i", "-S"}, {"-i", "--log-prefix=x"},
			{"--log-prefix=x"}, {"-l", "-T", "1", "--aggregate-interval=3"}, manyScripts(129),
			{"--exit-on-abort"}, {"--exit"}, {"-f", bad["sync"]}, // PostgreSQL 17's, which 15 refuses
			{"--partition-method=x"}, {"--show-script=nosuch"}, {"-i", "--random-seed=1"},
			// -S and -N number their scripts where they stand
			{"-n", "-S", "-b", "tpcb-like@2", "-N", "-t", "6", "--random-seed", "3"},
			// --help and --version only come first
			{"-n", "--help"}, {"-n", "-?"}, {"-n", "--version"}, {"-n", "-V"},
			// scripts are read where they stand among the options
			{"-f", "nosuch.sql", "-c", "0"}, {"-c", "0", "-f", "nosuch.sql"}, {"-b", "list", "-c", "0"},
			{"-b", "nosuch", "-M", "bogus"}, {"-f", syn, "-R", "0"},
			// a database that does not exist, a socket nobody listens on
			{"-t", "1", testutil.DatabaseURL(t, e.url, "nosuchdb")},
			{"-i", testutil.DatabaseURL(t, e.url, "nosuchdb")},
			{"-t", "1", "-h", e.dir, "-p", "1", "nosuchdb"},
			// server errors in full: LINE and caret, CONTEXT; a refused PREPARE
			{"-n", "-f", badsql, "-t", "1"}, {"-n", "-M", "extended", "-f", badsql, "-t", "1"},
			{"-n", "-M", "prepared", "-f", badsql, "-t", "1"},
			{"-n", "-M", "extended", "-f", badparam, "-D", "v=1a", "-t", "1"},
			{"-n", "-M", "prepared", "-f", badparam, "-D", "v=100000", "-t", "1"},
			{"-n", "-f", longsql, "-t", "1"}, {"-n", "-f", longearly, "-t", "1"}, {"-n", "-f", longmid, "-t", "1"},
			// -s with the builtins: pgbench warns it reads the tables' scale
			{"-n", "-s", "5", "-S", "-t", "2"}, {"-n", "-s", "1", "-S", "-t", "2"},
			// the systematic sweep through pgbench 15's options (issue 12):
			// numbers out of range, not numbers, too big, with spaces
			{"-c", "-1"}, {"-c", "2147483648"}, {"-c", "5x"}, {"-c", "100000"}, {"-j", "-1"}, {"-j", "x"},
			{"-t", "-1"}, {"-t", "x"}, {"-T", "-1"}, {"-T", "x"}, {"-P", "x"}, {"-P", "-1"}, {"-s", "x"},
			{"-s", "-1"}, {"-i", "-s", "0"}, {"-F", "9"}, {"-F", "101"}, {"-F", "x"}, {"-i", "-F", "9"},
			{"--partitions=-1"}, {"--partitions=x"}, {"-i", "--partitions=-1"}, {"--aggregate-interval=x"},
			{"--aggregate-interval=-1"}, {"-R", "-1"}, {"-L", "0"}, {"-L", "-1"}, {"--latency-limit=x"},
			{"--sampling-rate=0", "-l"}, {"--sampling-rate=x", "-l"}, {"--sampling-rate=1.5", "-l"},
			{"--sampling-rate=0.5"}, {"--sampling-rate=0.5", "-l", "--aggregate-interval=1"},
			{"--aggregate-interval=1"}, {"--max-tries=x"}, {"--max-tries=-5"}, {"--random-seed=1x"},
			{"--random-seed="}, {"-M", "Simple"}, {"-M", ""}, {"-i", "--partition-method=hash"},
			{"-i", "--partition-method=list", "--partitions=2"},
			{"-n", "-S", "-c", " 2 ", "-t", "1"}, {"-n", "-S", "-R", "1000x", "-t", "2"},
			{"-n", "-S", "-j", "4", "-c", "3", "-t", "1"}, {"-n", "-S", "--random-seed=-1", "-t", "1"},
			// -D, -b, -f and -I arguments pgbench refuses
			{"-D", "=1"}, {"-D", "a b=1"}, {"-D", "1a=1"}, {"-D", "a="}, {"-b", "nosuch@1"}, {"-b", "se@x"},
			{"-b", "se@-1"}, {"-b", "se@2147483648"}, {"-b", "si@1@2"}, {"-b", "s"}, {"-b", "select-only@"},
			{"-b", ""}, {"-f", badsql + "@x"}, {"-f", badsql + "@-1"}, {"-f", empty}, {"-f", comment},
			{"-f", unkmeta}, {"-f", badsleep}, {"-f", openif}, {"-f", endif}, {"-f", elsef}, {"-f", setshell},
			{"-f", setx}, {"-f", badsql + "@0"}, {"-M", "extended", "-f", manyargs}, {"-M", "prepared", "-f", manyargs},
			{"-f", bad["gsetfirst"]}, {"-f", bad["sleepx"]}, {"-f", bad["sleepf"]}, {"-f", bad["sleep0"]},
			{"-f", bad["sleep3"]}, {"-f", bad["set2"]}, {"-f", bad["shell0"]}, {"-f", bad["if0"]}, {"-f", bad["elif"]},
			{"-f", bad["aset"]}, {"-f", e.dir}, {"-f", badsql + "@2147483648"}, {"-f", badsql + "@99999999999999999999"},
			{"-n", "-t", "1", "-f", bad["gauss"]}, {"-n", "-t", "1", "-f", bad["endpipe"]},
			{"-n", "-t", "1", "-f", bad["pipe"]}, {"-n", "-t", "1", "-M", "extended", "-f", bad["pipe"]},
			{"-n", "-t", "1", "-f", bad["manyfn"]}, {"-i", "-I", ""}, {"-i", "-I", "dtgGvpfx"}, {"-I", "d"},
			// options of the other mode
			{"-i", "-t", "1"}, {"-i", "-T", "1"}, {"-i", "-C"}, {"-i", "-l"}, {"-i", "-M", "simple"},
			{"-i", "-f", badsql}, {"-i", "-D", "a=1"}, {"-i", "-P", "1"}, {"-i", "-r"}, {"-i", "-R", "1"},
			{"-i", "-L", "1"}, {"-i", "-v"}, {"-i", "--aggregate-interval=1"}, {"-i", "--failures-detailed"},
			{"-i", "--max-tries=2"}, {"-i", "--verbose-errors"}, {"-i", "--sampling-rate=0.5"},
			{"-i", "--progress-timestamp"}, {"-q"}, {"--foreign-keys"}, {"--index-tablespace=x"},
			{"--tablespace=x"}, {"--unlogged-tables"}, {"--partitions=2"}, {"--partition-method=range"},
			{"-T", "2", "--aggregate-interval=3", "-l"}, {"-T", "5", "--aggregate-interval=2", "-l"},
			{"-I", "dtg", "-i", "-n", "-q", "-F", "90", "--foreign-keys", "--tablespace=x", "a", "b"},
			// getopt_long: missing arguments, prefixes, ambiguity, arguments to switches
			{"-c"}, {"-M"}, {"-D"}, {"-b"}, {"-f"}, {"-I"}, {"-h"}, {"-p"}, {"-U"}, {"--host"}, {"--port"},
			{"--username"}, {"--show-script"}, {"--client"}, {"--cli"}, {"--h"}, {"-nc"}, {"-t", "1", "-T"},
			{"--connect=1"}, {"--conn=1"}, {"-S=1"}, {"--s=1"}, {"--p", "1"}, {"--he"}, {"--nosuch=1"},
			{"--=1"}, {"---c"}, {"--help=1"}, {"-x"}, {"--x"}, {"--r=1"}, {"-c=1"}, {"-nc=1"}, {"-cn"},
			{"--cl", "0"}, {"--tr=0"}, {"--ti", "0"}, {"--rand=x"}, {"--max", "0"}, {"--client", "0"},
			{"-n", "--se", "--cli=2", "--tr=1"}, {"-n", "--", "-c", "0"}, {"-c0"},
			{"--show-script=s"}, {"--show-script=se"}, {"--show-script=select-only@2"}, {"--sh="},
			// pgbench checks each option as it reads it, in order
			{"-R", "0", "-c", "0"}, {"-L", "0", "-c", "0"}, {"--sampling-rate=0", "-c", "0"},
			{"--max-tries=-1", "-c", "0"}, {"--partition-method=x", "-c", "0"}, {"--random-seed=x", "-c", "0"},
			{"-M", "x", "-c", "0"}, {"-D", "x", "-c", "0"}, {"-D", "1a=1", "-c", "0"}, {"-I", "x", "-c", "0"},
			{"-b", "se@x", "-c", "0"}, {"--show-script=x", "-c", "0"}, {"--show-script=se", "-c", "0"},
			{"-c", "0", "--show-script=se"}, {"-c", "0", "-R", "0"}, {"--random-seed=5", "-c", "0"},
			{"-c", "100000", "-M", "bogus"}, {"-M", "bogus", "-c", "100000"}, {"-c", "0", "--nosuch"},
			{"--nosuch", "-c", "0"}, {"-b", "list", "--nosuch"}, {"--nosuch", "-b", "list"}, {"-d", "-c", "0"},
			// connection options libpq refuses, a log file that cannot be made
			{"-n", "-S", "-t", "1", "-h", e.dir, "-p", "x", "postgres"}, {"-n", "-S", "-t", "1", "-h", e.dir, "-p", "-1", "postgres"},
			{"-n", "-S", "-t", "1", "-h", e.dir, "-p", "70000", "postgres"}, {"-i", "-h", e.dir, "-p", " 5x", "postgres"},
			{"-n", "-S", "-t", "1", "-h", e.dir, "-p", "99999999999", "postgres"},
			{"-n", "-S", "-t", "1", "-h", "nosuchhost.invalid", "postgres"},
			{"-n", "-S", "-t", "1", "-l", "--log-prefix=" + filepath.Join(e.dir, "nosuch", "x")},
			{"-n", "-S", "-t", "1", "-l", "--log-prefix=" + filepath.Join(badsql, "x")},
		}
		for _, c := range cases {
			args := append([]string{}, c...)
			if !namesDatabase(c) && !missingArgument(c) {
				args = append(args, e.url)
			}
			pc, pout, perr := e.pgbench(t, args...)
			tc, tout, terr := e.txnbench(t, append([]string{"--pgbench-output=strict"}, args...)...)
			name := strings.Join(c, " ")
			if pc != tc {
				t.Errorf("%s: exit %d, pgbench %d", name, tc, pc)
			}
			if p, g := errLines(perr), errLines(terr); p != g {
				t.Errorf("%s: stderr differs:\npgbench:\n%s\ntxnbench:\n%s", name, p, g)
			}
			if pout != "" || tout != "" {
				compareReports(t, pout, tout, "number of transactions actually processed")
			}
		}
	})
}

// debugLines are the distinct "pgbench: " lines of stderr, sorted.
func debugLines(stderr string) string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "pgbench: ") && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// manyScripts is -b select-only n times.
func manyScripts(n int) []string {
	var args []string
	for range n {
		args = append(args, "-b", "select-only")
	}
	return args
}

// missingArgument reports whether a command line ends with an option
// that lacks its argument (a URL after it would become the argument).
func missingArgument(args []string) bool {
	_, _, err := emulate.Getopt(args)
	return err != nil && strings.Contains(err.Error(), "requires an argument")
}

// namesDatabase reports whether a command line names its own server.
func namesDatabase(args []string) bool {
	for _, a := range args {
		if a == "-h" || strings.HasPrefix(a, "postgres") {
			return true
		}
	}
	return false
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// logfilePID is the process ID in the name of a log file.
var logfilePID = regexp.MustCompile(`^(pgbench: error: could not open logfile ".*\.)[0-9]+`)

// errLines is stderr without what differs by name or by nature: the
// program's path in getopt's messages, the --help hint's command, a log
// file's process ID and the vacuum lines without errors.
func errLines(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "starting vacuum...end." || l == "starting vacuum pgbench_accounts...end." ||
			strings.HasPrefix(l, "pgbench: setting random seed") {
			continue
		}
		// getopt names the program by its path
		if i := strings.Index(l, "pgbench: "); i > 0 && strings.HasPrefix(l, "/") {
			l = l[i:]
		}
		l = logfilePID.ReplaceAllString(l, "${1}PID")
		l = strings.Replace(l, `"txnbench pgbench --help"`, `"pgbench --help"`, 1)
		l = strings.Replace(l, `("txnbench pgbench -i")`, `("pgbench -i")`, 1)
		out = append(out, l)
	}
	// clients abort concurrently: their lines come in any order
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestPgbenchLogs compares the -l files' formats: fields per line and the
// tokens that must be equal.
func TestPgbenchLogs(t *testing.T) {
	t.Parallel()
	e := newPgbenchEnv(t)
	e.anyDir = true // every log is named by its full path
	sqldiv := e.write(t, "fail.sql", "\\set x random(1, 2)\nSELECT 1/(:x - 1);\n")
	_ = sqldiv
	cases := []struct {
		args   []string
		fields int
	}{
		{[]string{"-S", "-t", "5", "-c", "2", "-j", "2"}, 6},
		{[]string{"-S", "-t", "5", "-R", "500"}, 7},
		{[]string{"-S", "-t", "5", "--max-tries", "2"}, 7},
		{[]string{"-S", "-t", "5", "-R", "500", "--max-tries", "2"}, 8},
		{[]string{"-S", "-T", "2", "--aggregate-interval", "1"}, 15},
		{[]string{"-S", "-T", "2", "--aggregate-interval", "1", "-R", "200", "-L", "5", "--failures-detailed"}, 15},
		{[]string{"-S", "-t", "50", "--sampling-rate", "0.5", "--random-seed", "9"}, 6},
	}
	for i, c := range cases {
		var took time.Duration // txnbench's run, start to exit
		for _, who := range []string{"pg", "tb"} {
			prefix := filepath.Join(e.dir, fmt.Sprintf("%s%d", who, i))
			args := append(append([]string{"-n", "-l", "--log-prefix", prefix}, c.args...), e.url)
			run := e.pgbench
			if who == "tb" {
				run = e.txnbench
			}
			began := time.Now()
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("%s %v: exit %d\n%s", who, c.args, code, stderr)
			}
			took = time.Since(began)
		}
		pfiles, _ := filepath.Glob(filepath.Join(e.dir, fmt.Sprintf("pg%d.*", i)))
		tfiles, _ := filepath.Glob(filepath.Join(e.dir, fmt.Sprintf("tb%d.*", i)))
		if len(pfiles) != len(tfiles) || len(pfiles) == 0 {
			t.Errorf("%v: %d log files, pgbench %d", c.args, len(tfiles), len(pfiles))
			continue
		}
		sort.Strings(pfiles)
		sort.Strings(tfiles)
		var plines, tlines [][]string
		for k := range pfiles {
			if filepath.Ext(pfiles[k]) != filepath.Ext(tfiles[k]) && k > 0 {
				t.Errorf("%v: file %s, pgbench %s", c.args, tfiles[k], pfiles[k])
			}
			plines = append(plines, logLines(t, pfiles[k])...)
			tlines = append(tlines, logLines(t, tfiles[k])...)
		}
		if len(plines) == 0 || len(tlines) == 0 {
			t.Errorf("%v: empty logs (%d, %d lines)", c.args, len(plines), len(tlines))
			continue
		}
		for _, lines := range [][][]string{plines, tlines} {
			for _, l := range lines {
				if len(l) != c.fields {
					t.Errorf("%v: %d fields, want %d: %q", c.args, len(l), c.fields, l)
					break
				}
			}
		}
		agg := c.fields == 15
		if !agg {
			if !strings.Contains(strings.Join(c.args, " "), "sampling") && len(plines) != len(tlines) {
				t.Errorf("%v: %d lines, pgbench %d", c.args, len(tlines), len(plines))
			}
			// client, transaction number and script: equal with -t
			// and one script, line by line per client.
			key := func(ls [][]string) string {
				var ks []string
				for _, l := range ls {
					ks = append(ks, l[0]+" "+l[1]+" "+l[3])
				}
				sort.Strings(ks)
				return strings.Join(ks, ",")
			}
			if strings.Contains(strings.Join(c.args, " "), "sampling") {
				// the same sample stream picks the same transactions
				if key(plines) != key(tlines) {
					t.Errorf("%v: sampled %s, pgbench %s", c.args, key(tlines), key(plines))
				}
			} else if key(plines) != key(tlines) {
				t.Errorf("%v: client/txn/script %s, pgbench %s", c.args, key(tlines), key(plines))
			}
		} else {
			var pcnt, tcnt int
			for _, l := range plines {
				var n int
				fmt.Sscan(l[1], &n)
				pcnt += n
			}
			for _, l := range tlines {
				var n int
				fmt.Sscan(l[1], &n)
				tcnt += n
			}
			// One line per second the run lasted, consecutive: at least
			// the -T 2's two, and no more than the seconds the whole
			// process took touch (a loaded machine stretches the last
			// transaction, and pgbench's too, past -T).
			if most := int(took/time.Second) + 2; len(tlines) < 2 || len(tlines) > most || tcnt == 0 {
				t.Errorf("%v: %d interval lines with %d transactions in a run of %s (at most %d; pgbench: %d lines, %d)", c.args, len(tlines), tcnt, took.Round(time.Millisecond), most, len(plines), pcnt)
			}
			for k := 1; k < len(tlines); k++ {
				var prev, cur int64
				fmt.Sscan(tlines[k-1][0], &prev)
				fmt.Sscan(tlines[k][0], &cur)
				if cur != prev+1 {
					t.Errorf("%v: interval line %d starts at %d, the one before at %d: want consecutive seconds", c.args, k+1, cur, prev)
				}
			}
		}
	}
}

func logLines(t *testing.T, path string) [][]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l != "" {
			out = append(out, strings.Fields(l))
		}
	}
	return out
}

// TestPgbenchInit compares `txnbench pgbench -i` with pgbench -i, and runs
// on temp-postgres, which txnbench initialises first.
func TestPgbenchInit(t *testing.T) {
	t.Parallel()
	e := &pgbenchEnv{bin: testutil.Pgbench(t), url: testutil.LibpqURL(testutil.SharedPostgres(t)), dir: t.TempDir(), anyDir: true} // it writes no files
	mask := regexp.MustCompile(`[0-9]+\.[0-9]+ s`)
	for _, args := range [][]string{{"-i", "-s", "1"}, {"-i", "-s", "1", "-I", "dtGvpf", "--foreign-keys"}, {"-i", "-q", "--unlogged-tables", "--partitions", "3"}} {
		// from no tables each: DROP TABLE IF EXISTS then sends its NOTICEs
		drop := "DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"
		e.exec(t, drop)
		pc, pout, perr := e.pgbench(t, append(args, e.url)...)
		e.exec(t, drop)
		tc, tout, terr := e.txnbench(t, append(args, e.url)...)
		if pc != tc || pout != tout {
			t.Errorf("%v: exit %d stdout %q, pgbench %d %q", args, tc, tout, pc, pout)
		}
		// pgbench's \r progress lines: compare the lines that say what it did.
		clean := func(s string) string {
			var out []string
			for _, l := range strings.Split(strings.ReplaceAll(s, "\r", "\n"), "\n") {
				if strings.Contains(l, "tuples (") || l == "" {
					continue
				}
				out = append(out, mask.ReplaceAllString(l, "N s"))
			}
			return strings.Join(out, "\n")
		}
		if p, g := clean(perr), clean(terr); p != g {
			t.Errorf("%v: stderr differs:\npgbench:\n%s\ntxnbench:\n%s", args, p, g)
		}
	}

	code, out, stderr := e.txnbench(t, "--db", "temp-postgres", "-s", "1", "-t", "5", "-c", "2")
	if code != 0 || !strings.Contains(out, "number of transactions actually processed: 10/10") || !strings.Contains(out, "invariants: OK") {
		t.Errorf("temp-postgres: exit %d\n%s\n%s", code, out, stderr)
	}
}
