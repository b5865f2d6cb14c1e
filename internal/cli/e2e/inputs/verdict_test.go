package inputs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// lastLine is the last line of s, the one-line error a user sees.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestReadOnlyDatabase: train-events against a database made read-only
// after init never adds anything: it exits 1 saying so, its errors are
// classed read_only, and the clients back off instead of hammering the
// server (far fewer errors than the cycles they could have run).
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	url := testutil.SharedPostgres(t) // a database of its own, made read-only
	clitest.MustRun(t, append([]string{"init", "train-events", "--db", url}, clitest.Quick...)...)
	testutil.Exec(t, url, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$")
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", url, "--duration", "2s", "--clients", "2", "--telemetry", "off", "--json", out}, clitest.Quick...)
	code, stdout, stderr := clitest.Run(args...)
	if code != exitcode.Failure || !strings.HasPrefix(lastLine(stderr), "txnbench: no add succeeded: ") || !strings.Contains(lastLine(stderr), "failed (read_only: ") {
		t.Fatalf("exit %d, stderr %q; want exit 1 saying no add succeeded (read_only)\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "invariants: OK") {
		t.Errorf("the check of what did not change should pass:\n%s", stdout)
	}
	r := clitest.LoadResult(t, out)
	add := r.Op("add")
	if add == nil || add.Count != 0 || add.ErrorCount() == 0 || add.Errors["read_only"] != add.ErrorCount() {
		t.Fatalf("add: %+v", add)
	}
	// Without backoff each client fails an INSERT about every millisecond
	// (--delay 1ms): thousands in 2 s. Backing off up to 1 s leaves a few
	// dozen.
	t.Logf("%d errors; %s", add.ErrorCount(), lastLine(stderr))
	if n := add.ErrorCount(); n > 200 {
		t.Errorf("%d errors in 2 s from 2 clients: the clients did not back off", n)
	}
}

// failingScripts writes custom scripts on SQLite: miss.sql fails every
// time (no such table), half.sql about every other time (malformed JSON
// when x is 1).
func failingScripts(t *testing.T) (dir, miss, half string) {
	dir = t.TempDir()
	miss, half = filepath.Join(dir, "miss.sql"), filepath.Join(dir, "half.sql")
	os.WriteFile(miss, []byte("SELECT * FROM nosuch;\n"), 0o644)
	os.WriteFile(half, []byte("\\set x random(0, 1)\nSELECT CASE WHEN :x + 0 = 1 THEN json('bad') ELSE 1 END;\n"), 0o644)
	return dir, miss, half
}

// TestExitStatusReflectsFailure: a run in which an op never succeeded
// exits 1 naming it, --min-success fails a run (or a study's cell) whose
// success rate is below it, and custom scripts' check says "not checked",
// never OK, in the terminal, the saved JSON and a study's summary.
func TestExitStatusReflectsFailure(t *testing.T) {
	t.Parallel()
	dir, miss, half := failingScripts(t)
	db := func(name string) string { return "sqlite:" + filepath.Join(dir, name) }
	cases := []struct {
		args []string
		code int
		want string // in the last line of stderr
	}{
		{[]string{"run", "script", "-f", miss, "--db", db("m.db"), "--iterations", "10", "--clients", "1", "--json", filepath.Join(dir, "m.json")},
			exitcode.Failure, "txnbench: no miss.sql succeeded: 10 failed (undefined_object: "},
		{[]string{"run", "script", "-f", half, "--db", db("h.db"), "--iterations", "40", "--clients", "1", "--seed", "3", "--min-success", "90"},
			exitcode.Failure, "% of transactions succeeded ("},
		{[]string{"run", "script", "-f", half, "--db", db("h.db"), "--iterations", "40", "--clients", "1", "--seed", "3", "--min-success", "10"},
			exitcode.OK, ""},
		{[]string{"study", "script", "-f", half, "--db", db("s.db"), "--vary", "clients=1,2", "--iterations", "40", "--seed", "3", "--settle", "0s",
			"--min-success", "90", "--out", filepath.Join(dir, "st")},
			exitcode.Failure, "txnbench: cell clients=1: "},
		{[]string{"run", "script", "-f", half, "--min-success", "101"}, exitcode.Usage, "--min-success 101: give a percentage from 0 (off) to 100"},
	}
	for _, c := range cases {
		code, stdout, stderr := clitest.Run(c.args...)
		if code != c.code || !strings.Contains(lastLine(stderr), c.want) {
			t.Errorf("%v: exit %d, last line %q; want exit %d saying %q", c.args, code, lastLine(stderr), c.code, c.want)
		}
		if c.code == exitcode.Usage {
			continue
		}
		if strings.Contains(stdout, "invariants: OK") || !strings.Contains(stdout, "invariants: not checked (custom scripts)") {
			t.Errorf("%v: custom scripts' check is not \"not checked\":\n%s", c.args, stdout)
		}
	}
	r := clitest.LoadResult(t, filepath.Join(dir, "m.json"))
	if r.Invariants == nil || r.Invariants.OK || r.Invariants.NotChecked != "custom scripts" {
		t.Errorf("saved invariants: %+v", r.Invariants)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "st", "study.md")); !strings.Contains(string(md), "invariants: not checked (custom scripts)") || strings.Contains(string(md), "OK in every run") {
		t.Errorf("study.md:\n%s", md)
	}
	code, stdout, stderr := clitest.Run("report", filepath.Join(dir, "m.json"))
	if code != exitcode.OK || !strings.Contains(stdout, "invariants: not checked (custom scripts)") {
		t.Errorf("report: exit %d %s\n%s", code, stderr, stdout)
	}
}

// TestInterruptedBeforeAnySuccess: an interrupted run exits 130 even when
// nothing succeeded before the interrupt.
func TestInterruptedBeforeAnySuccess(t *testing.T) {
	dir, miss, _ := failingScripts(t)
	cmd, stdout, stderr := clitest.Start(t, "run", "script", "-f", miss, "--db", "sqlite:"+filepath.Join(dir, "m.db"), "--duration", "60s", "--progress", "200ms", "--clients", "1")
	err := clitest.InterruptWhen(cmd, stderr, func(s string) bool { return strings.Contains(s, "errors") })
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", code, err, exitcode.Interrupted, stderr.String())
	}
	if !strings.Contains(stdout.String(), "invariants: not checked (custom scripts)") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// TestReportRefusesToMergeDifferentRuns: report merges parts of one run
// only; results of different workload settings are refused with exit 2
// naming the setting and the files.
func TestReportRefusesToMergeDifferentRuns(t *testing.T) {
	_, save := diffInputs(t)
	a := save("a.json", func(r *result.Result) { r.Settings["variant"] = "manual" })
	b := save("b.json", func(r *result.Result) { r.Settings["variant"] = "text" })
	part := save("part.json", func(r *result.Result) {
		r.Settings["variant"] = "manual"
		r.Config.Clients = 2
		r.Started = r.Started.Add(time.Millisecond) // another process's part, begun a moment later
	})
	code, _, stderr := clitest.Run("report", a, b)
	want := fmt.Sprintf("txnbench: cannot merge: variant differs (manual in %s, text in %s); merge parts of one run only", a, b)
	if code != exitcode.Usage || lastLine(stderr) != want {
		t.Errorf("exit %d, last line %q; want %d, %q", code, lastLine(stderr), exitcode.Usage, want)
	}
	if code, stdout, stderr := clitest.Run("report", a, part); code != exitcode.OK || !strings.Contains(stdout, "merged from 2 results") {
		t.Errorf("parts with different clients: exit %d %s\n%s", code, stderr, stdout)
	}
}
