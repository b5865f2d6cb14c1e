package interrupts

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestInterruptDuringHang: with the server stopped (SIGSTOP), the first
// Ctrl-C prints and saves the result within seconds, says the check could
// not run and counts the ops left hanging as unfinished, and exits 130.
func TestInterruptDuringHang(t *testing.T) {
	t.Parallel()
	cmd, stdout, stderr, out, _ := stopServerMidRun(t, "--clients", "4", "--duration", "60s", "--progress", "300ms")
	// Every client is stuck once an interval completes nothing.
	clitest.WaitFor(t, stderr, len(stderr.String()), `\| cycle 0\.0/s`)
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitExitCode(t, cmd, 20*time.Second, stderr, exitcode.Interrupted)
	plain.Contains(t, "stdout", stdout.String(), "INTERRUPTED", "invariants: not checked (the server did not answer within 2s)", "unfinished when the run ended")
	r := clitest.LoadResult(t, out)
	c := r.Op(result.CycleOp)
	if !r.Interrupted || r.Invariants == nil || r.Invariants.NotChecked == "" || c.Unfinished != 4 || c.UnfinishedMaxMS <= 0 {
		t.Errorf("saved: interrupted %v, invariants %+v, %d cycles unfinished (max %.0f ms); want 4", r.Interrupted, r.Invariants, c.Unfinished, c.UnfinishedMaxMS)
	}
	if r.Telemetry == nil || !strings.Contains(strings.Join(r.Telemetry.Notes, "\n"), "telemetry was cut short: the server did not answer") {
		t.Errorf("telemetry notes: %+v", r.Telemetry)
	}
}

// TestSecondInterruptKillsServers: a second Ctrl-C while txnbench waits for
// the throwaway server it started (stopped here, so the check after the
// first Ctrl-C waits its 5 s for an answer) kills it, says so, and exits
// 130 at once, leaving nothing behind. (Not after "result saved": the
// shutdown resumes a stopped server first, which may then be gone before
// the second signal lands.)
func TestSecondInterruptKillsServers(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, _, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--clients", "2",
		"--duration", "60s", "--progress", "300ms", "--json", out}, clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	port := clitest.ServerPort(t, stderr)
	n, _ := strconv.Atoi(port)
	clitest.StopServer(t, n)
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitFor(t, stderr, 0, "interrupted: stopping clients")
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitExitCode(t, cmd, 15*time.Second, stderr, exitcode.Interrupted)
	if !regexp.MustCompile(`interrupted again: stopping the servers txnbench started \(postgres \(pid \d+\)\)`).MatchString(stderr.String()) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	clitest.CheckClusterGone(t, port)
}

// TestHangAtWindowEnd: ops hanging on a stopped server when the window
// ends are cancelled after --grace and counted unfinished, with how long
// they had run, in the table and the JSON. The window lasts 8 s so that
// the server is stopped well inside it however slow the first cycles are
// (at load 40 the first took 1.2 s, and a 2 s window had ended before the
// stop landed).
func TestHangAtWindowEnd(t *testing.T) {
	t.Parallel()
	cmd, stdout, stderr, out, resume := stopServerMidRun(t, "--clients", "3", "--duration", "8s", "--grace", "300ms", "--progress", "300ms")
	clitest.WaitFor(t, stderr, 0, `grace period of 300ms over: cancelled 3 ops still running`)
	resume() // the telemetry and the check can finish
	clitest.WaitExitCode(t, cmd, 60*time.Second, stderr, exitcode.OK)
	if !strings.Contains(stdout.String(), "unfinished when the run ended (in no column): cycle 3 (running ") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	r := clitest.LoadResult(t, out)
	// They hung from before the window's end until the grace period's.
	if c := r.Op(result.CycleOp); c.Unfinished != 3 || c.UnfinishedMaxMS < 300 {
		t.Errorf("%d cycles unfinished, running %.0f ms or more; want 3, at least 300 ms", c.Unfinished, c.UnfinishedMaxMS)
	}
}

// stopServerMidRun starts train-events with args (and Quick's) on a
// PostgreSQL of the test's own, saving its result to out, and stops the
// server (SIGSTOP; resume continues it) once a cycle has completed.
func stopServerMidRun(t *testing.T, args ...string) (cmd *exec.Cmd, stdout, stderr *clitest.Buffer, out string, resume func()) {
	t.Helper()
	cl := testutil.Postgres(t)
	out = filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr = clitest.Start(t, append(append([]string{"run", "train-events", "--db", cl.URL(), "--json", out}, args...), clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	return cmd, stdout, stderr, out, clitest.StopServer(t, cl.Port())
}
