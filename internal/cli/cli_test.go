package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestMain lets tests run the real command in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("TXNBENCH_CLI_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	if port := os.Getenv("TXNBENCH_IMPOSTOR_PORT"); port != "" {
		os.Exit(impostorMain(port))
	}
	// The parallel tests mostly wait (for servers to start, windows to
	// pass, faults to recover): four at once, unless -parallel says.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// quick train-events flags for short runs.
var quick = []string{"--rows", "200", "--delay", "1ms", "--think-min", "0s", "--think-max", "1ms", "--max-batch", "20"}

func TestRuntimeFailures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	cases := []struct {
		args []string
		want string
		code int
	}{
		// Nothing listens on port 1.
		{[]string{"run", "train-events", "--db", "postgres://bob:s3cretpw@127.0.0.1:1/db", "--json", out}, "connection refused; is the server running", exitcode.Failure},
		{[]string{"run", "train-events", "--db", "temp-postgres", "--pg-bin", "/nonexistent", "--json", out}, "--pg-bin", exitcode.Failure},
		{[]string{"run", "train-events", "--db", "sqlite:/nonexistent/dir/x.db", "--json", out}, "does not exist", exitcode.Failure},
		{[]string{"run", "train-events", "--via", "pgbouncer", "--json", out}, "--via pgbouncer needs a PostgreSQL server", exitcode.Usage},
		{[]string{"run", "train-events", "--db", "temp-postgres", "--via", "pgbouncer", "--pgbouncer-bin", "/nonexistent/pgbouncer", "--json", out}, "--pgbouncer-bin", exitcode.Failure},
	}
	for _, c := range cases {
		want := c.code
		code, stdout, stderr := runMain(c.args...)
		if code != want || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q; want exit %d saying %q", c.args, code, stderr, want, c.want)
		}
		if strings.Contains(stdout+stderr, "s3cretpw") {
			t.Errorf("%v: password printed", c.args)
		}
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); !strings.HasPrefix(lines[len(lines)-1], "txnbench: ") {
			t.Errorf("%v: the error is not one line: %q", c.args, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: a failed run left %s", c.args, out)
		}
	}
}

func TestWrongPassword(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	url := fmt.Sprintf("postgres://postgres:wrong-pw@127.0.0.1:%d/postgres?sslmode=disable", cl.Port())
	code, stdout, stderr := runMain("run", "train-events", "--db", url, "--iterations", "1")
	if code != exitcode.Failure || !strings.Contains(stderr, "check the user name and password") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
	if strings.Contains(stdout+stderr, "wrong-pw") {
		t.Errorf("password printed: %q", stderr)
	}
}

// TestRunSaveAndReport: a run on a server given by URL with a password
// prints the table, saves JSON with the password masked, and report
// re-renders and merges it.
func TestRunSaveAndReport(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	url := cl.URL()
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", url, "--iterations", "30", "--clients", "4", "--seed", "7", "--json", out}, quick...)
	code, stdout, stderr := runMain(args...)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"invariants: OK", "cycle", "add", "process", "archive", "p99(ms)", "PostgreSQL 15", "seed 7"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	saved, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(saved, []byte(cl.Password())) || strings.Contains(stdout+stderr, cl.Password()) {
		t.Error("password in the output or the saved result")
	}
	if !bytes.Contains(saved, []byte("postgres:xxxxx@")) {
		t.Error("saved result does not record the masked URL")
	}
	code, rendered, stderr := runMain("report", out)
	if code != exitcode.OK || !strings.Contains(rendered, "invariants: OK") {
		t.Fatalf("report: exit %d %s\n%s", code, stderr, rendered)
	}
	// One run is one part: merged with itself it would count twice.
	merged := filepath.Join(t.TempDir(), "m.json")
	if code, _, stderr := runMain("report", out, out, "--json", merged); code != exitcode.Usage || !strings.Contains(stderr, "are the same part of a run") {
		t.Errorf("report of one result twice: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(merged); !os.IsNotExist(err) {
		t.Errorf("a merge of one result with itself was saved: %v", err)
	}
}

// TestSIGTERMStopsCleanly runs the real command in a child process on
// temp-postgres, sends SIGTERM mid-run, and expects exit 130, the table,
// a saved result, and no cluster left behind.
func TestSIGTERMStopsCleanly(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := startTxnbench(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--duration", "60s", "--progress", "500ms", "--json", out}, quick...)...)
	err := interruptWhen(cmd, stderr, func(s string) bool { return strings.Contains(s, "1.0s |") })
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", code, err, exitcode.Interrupted, stderr.String())
	}
	if !strings.Contains(stdout.String(), "invariants: OK") || !strings.Contains(stdout.String(), "INTERRUPTED") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	r, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Op("cycle").Count == 0 {
		t.Errorf("saved result: interrupted %v, cycles %d", r.Interrupted, r.Op("cycle").Count)
	}
	// This run's cluster, found by its port (other tests run clusters too).
	m := regexp.MustCompile(`ready on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no port in stderr:\n%s", stderr.String())
	}
	checkClusterGone(t, m[1])
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "txnbench-pg-*", "data", "postmaster.opts"))
	for _, d := range dirs {
		if b, _ := os.ReadFile(d); bytes.Contains(b, []byte("-p\" \""+m[1])) || bytes.Contains(b, []byte("-p "+m[1])) {
			t.Errorf("cluster directory left behind: %s", filepath.Dir(filepath.Dir(d)))
		}
	}
}

// TestStudy runs a small study on SQLite: every cell twice, interleaved,
// one JSON per run, study.json and study.md, and the comparisons printed:
// along the varied setting (the default --compare axis) and the fixed
// work's wall times, the same again from study.json.
func TestStudy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "st")
	args := append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "s.db"),
		"--vary", "variant=manual,text", "--iterations", "6", "--clients", "2", "--settle", "0s", "--repeat", "2", "--out", out}, quick...)
	code, stdout, stderr := runMain(args...)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"## add", "variant=manual", "variant=text", "## variant: manual -> text", " manual -> text |", "## fixed work (--iterations)", " vs previous variant |", "invariants: OK in every run", "[4/4]"} {
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("output lacks %q (a column's header is padded to its widest value):\n%s\n%s", want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "vs first") {
		t.Errorf("--compare axis still compares with the first cell:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	js, _ := os.ReadFile(filepath.Join(out, "study.json"))
	if !bytes.Contains(js, []byte(`"comparisons"`)) || !bytes.Contains(js, []byte(`"axis": "variant"`)) || !bytes.Contains(js, []byte(`"fixed_work"`)) {
		t.Errorf("study.json lacks the comparisons:\n%s", js)
	}
	if code, again, stderr := runMain("report", filepath.Join(out, "study.json")); code != exitcode.OK || again != string(md) {
		t.Errorf("report of study.json: exit %d %s, and it differs from study.md:\n%s", code, stderr, again)
	}
	files, _ := filepath.Glob(filepath.Join(out, "cell*-rep*.json"))
	if len(files) != 4 {
		t.Errorf("%d result files, want 4: %v", len(files), files)
	}
	for _, f := range []string{"study.json", "study.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	r, err := result.Load(filepath.Join(out, "cell02-rep2.json"))
	if err != nil || r.Settings["variant"] != "text" || r.Op("cycle").Count != 6 {
		t.Errorf("cell 2: %v %+v", err, r)
	}
}

func TestStudyBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"study"}, "no workload given"},
		{[]string{"study", "train-events"}, "nothing to vary"},
		{[]string{"study", "train-events", "--vary", "nosuch=1,2"}, "unknown --vary name \"nosuch\""},
		{[]string{"study", "train-events", "--vary", "json=a,b"}, "unknown --vary name \"json\""},
		// the hint names the chosen workload's own flags, not another's
		{[]string{"study", "connect-overhead", "--vary", "nosuch=1,2"}, "(e.g. clients, conn, db, pool-max, or the workload's own: query, rows, delay)"},
		{[]string{"study", "train-events", "--vary", "nosuch=1,2"}, "the workload's own: variant, payload,"},
		{[]string{"study", "train-events", "--vary", "clients="}, "empty value"},
		{[]string{"study", "train-events", "--vary", "clients"}, "want name=value1,value2"},
		{[]string{"study", "train-events", "--vary", "clients=2,many"}, "--vary clients=many"},
		{[]string{"study", "train-events", "--vary", "variant=jsonb,bogus"}, "unknown --variant \"bogus\""},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--repeat", "0"}, "--repeat 0"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--compare", "best"}, "--compare \"best\": choose axis"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--nosuch"}, "unknown flag: --nosuch"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--json", "s.json"}, "--json does not apply to a study: its --out directory has study.json"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--html", "s.html"}, "--html does not apply to a study"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--cpu-profile", "cpu.out"}, "--cpu-profile does not apply to a study"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(c.args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", c.args, code, stderr, exitcode.Usage, c.want)
		}
	}
}
