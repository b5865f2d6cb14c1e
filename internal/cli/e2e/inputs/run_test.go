package inputs

import (
	"bytes"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

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
		// A --pg-bin or --pgbouncer-bin that names no binary is a usage
		// error, refused before the server starts (issue 37).
		{[]string{"run", "train-events", "--db", "temp-postgres", "--pg-bin", "/nonexistent", "--json", out}, "--pg-bin", exitcode.Usage},
		{[]string{"run", "train-events", "--db", "sqlite:/nonexistent/dir/x.db", "--json", out}, "--db sqlite:/nonexistent/dir/x.db: directory /nonexistent/dir does not exist", exitcode.Usage},
		{[]string{"run", "train-events", "--via", "pgbouncer", "--json", out}, "--via pgbouncer needs a PostgreSQL server", exitcode.Usage},
		{[]string{"run", "train-events", "--db", "temp-postgres", "--via", "pgbouncer", "--pgbouncer-bin", "/nonexistent/pgbouncer", "--json", out}, "--pgbouncer-bin", exitcode.Usage},
	}
	for _, c := range cases {
		want := c.code
		code, stdout, stderr := clitest.Run(c.args...)
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
	u, err := neturl.Parse(testutil.SharedPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("postgres://postgres:wrong-pw@%s%s?sslmode=disable", u.Host, u.Path)
	code, stdout, stderr := clitest.Run("run", "train-events", "--db", url, "--iterations", "1")
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
	url := testutil.SharedPostgres(t)
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", url, "--iterations", "30", "--clients", "4", "--seed", "7", "--json", out}, clitest.Quick...)
	stdout, stderr := clitest.MustRun(t, args...)
	plain.Contains(t, "output", stdout, "invariants: OK", "cycle", "add", "process", "archive", "p99(ms)", "PostgreSQL 15", "seed 7")
	saved := clitest.Read(t, out)
	if password == "" || bytes.Contains(saved, []byte(password)) || strings.Contains(stdout+stderr, password) {
		t.Error("password in the output or the saved result")
	}
	if !bytes.Contains(saved, []byte("postgres:xxxxx@")) {
		t.Error("saved result does not record the masked URL")
	}
	code, rendered, stderr := clitest.Run("report", out)
	if code != exitcode.OK || !strings.Contains(rendered, "invariants: OK") {
		t.Fatalf("report: exit %d %s\n%s", code, stderr, rendered)
	}
	// One run is one part: merged with itself it would count twice.
	merged := filepath.Join(t.TempDir(), "m.json")
	if code, _, stderr := clitest.Run("report", out, out, "--json", merged); code != exitcode.Usage || !strings.Contains(stderr, "are the same part of a run") {
		t.Errorf("report of one result twice: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(merged); !os.IsNotExist(err) {
		t.Errorf("a merge of one result with itself was saved: %v", err)
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
		code, _, stderr := clitest.Run(c.args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", c.args, code, stderr, exitcode.Usage, c.want)
		}
	}
}
