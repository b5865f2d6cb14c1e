package interrupts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestFrozenServerDuringTheCheck: a server frozen (SIGSTOP) while the
// invariant check's query runs ends the run within 15 s of the freeze
// (and 5 s for a loaded machine), saying `invariants: not checked (the
// server did not answer ...)` and exiting 1, never 0: a check that
// verified nothing is no pass. A check as slow on a server that answers
// (a query of 12 s, longer than the silence the check tolerates) is not
// given up: it passes. Before, the frozen check's query waited out its
// 5 minutes.
func TestFrozenServerDuringTheCheck(t *testing.T) {
	t.Parallel()
	const promised = 15 * time.Second
	const pgRunning = "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE $1"
	const mariaRunning = "SELECT count(*) FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND info LIKE ?"
	for _, c := range []struct {
		name, check string
		freeze      bool
		mariadb     bool
	}{
		{"slow", "SELECT true FROM pg_sleep(12)", false, false},
		{"frozen", "SELECT true FROM pg_sleep(300)", true, false},
		{"frozen MariaDB", "SELECT SLEEP(300) = 0", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var url, running string
			var freeze func()
			if c.mariadb {
				m := testutil.MariaDB(t)
				url, running = m.URL(), mariaRunning
				freeze = func() {
					pid := m.PID()
					syscall.Kill(pid, syscall.SIGSTOP)
					t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) }) // before the Stop above
				}
			} else {
				testutil.NeedPostgres(t)
				cl := testutil.Postgres(t)
				url, running = cl.URL(), pgRunning
				freeze = func() { clitest.StopServer(t, cl.Port()) }
			}
			dir := t.TempDir()
			script := testutil.WriteFile(t, dir, "one.sql", "SELECT 1;\n")
			check := testutil.WriteFile(t, dir, "check.sql", "-- the check\n"+c.check+";\n")
			out := filepath.Join(dir, "r.json")
			cmd, stdout, stderr := clitest.Start(t, "run", "script", "--db", url, "-f", script, "--no-init",
				"--clients", "1", "--iterations", "3", "--check", check, "--json", out)
			var took time.Duration
			if c.freeze {
				waitForQuery(t, url, running, c.check)
				freeze()
				took = waitExitOrDump(t, cmd, promised+5*time.Second, stderr)
			} else {
				took = waitExitOrDump(t, cmd, 2*time.Minute, stderr)
			}
			code := cmd.ProcessState.ExitCode()
			t.Logf("exit %d %.1f s after the freeze (or the start)\nstdout:\n%s\nstderr:\n%s", code, took.Seconds(), stdout.String(), stderr.String())
			want, wantCode := "\ninvariants: OK\n", exitcode.OK
			if c.freeze {
				want, wantCode = "\ninvariants: not checked (the server did not answer", exitcode.Failure
			}
			if code != wantCode || !strings.Contains(stdout.String(), want) {
				t.Errorf("exit %d, want %d and %q", code, wantCode, want)
			}
			if _, err := os.Stat(out); err != nil {
				t.Fatalf("no result saved: %v", err)
			}
			r := clitest.LoadResult(t, out)
			if c.freeze && (r.Invariants == nil || r.Invariants.OK || r.Invariants.Violated() || r.Invariants.NotChecked == "") {
				t.Errorf("saved invariants %+v, want not checked", r.Invariants)
			}
		})
	}
}

// waitForQuery polls url's sessions, counting those that run a query
// like the argument with running, until one runs query.
func waitForQuery(t *testing.T, url, running, query string) {
	t.Helper()
	_, c, done := testutil.Conn(t, url)
	defer done()
	ok := testutil.Poll(3*time.Minute, 50*time.Millisecond, func() bool {
		var n int64
		err := target.QueryRow(context.Background(), c, running, []any{"%" + query + "%"}, &n)
		return err == nil && n > 0
	})
	if !ok {
		t.Fatalf("no session ran %q", query)
	}
}
