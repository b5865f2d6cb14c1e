package interrupts

import (
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
	cl := testutil.Postgres(t)
	url := cl.URL()
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", url, "--clients", "4",
		"--duration", "60s", "--progress", "300ms", "--json", out}, clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	clitest.StopServer(t, cl.Port())
	// Every client is stuck once an interval completes nothing.
	clitest.WaitFor(t, stderr, len(stderr.String()), `\| cycle 0\.0/s`)
	cmd.Process.Signal(syscall.SIGINT)
	took := clitest.WaitExit(t, cmd, 20*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d after %s, want %d\nstderr:\n%s", code, took, exitcode.Interrupted, stderr.String())
	}
	plain.Contains(t, "stdout", stdout.String(), "INTERRUPTED", "invariants: not checked (the server did not answer within 2s)", "unfinished when the run ended")
	r, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
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
	m := regexp.MustCompile(`ready on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no port in stderr:\n%s", stderr.String())
	}
	port, _ := strconv.Atoi(m[1])
	clitest.StopServer(t, port)
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitFor(t, stderr, 0, "interrupted: stopping clients")
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitExit(t, cmd, 15*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	if !regexp.MustCompile(`interrupted again: stopping the servers txnbench started \(postgres \(pid \d+\)\)`).MatchString(stderr.String()) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	clitest.CheckClusterGone(t, m[1])
}

// TestHangAtWindowEnd: ops hanging on a stopped server when the window
// ends are cancelled after --grace and counted unfinished, with how long
// they had run, in the table and the JSON. The window lasts 8 s so that
// the server is stopped well inside it however slow the first cycles are
// (at load 40 the first took 1.2 s, and a 2 s window had ended before the
// stop landed).
func TestHangAtWindowEnd(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	url := cl.URL()
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", url, "--clients", "3",
		"--duration", "8s", "--grace", "300ms", "--progress", "300ms", "--json", out}, clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	resume := clitest.StopServer(t, cl.Port())
	clitest.WaitFor(t, stderr, 0, `grace period of 300ms over: cancelled 3 ops still running`)
	resume() // the telemetry and the check can finish
	clitest.WaitExit(t, cmd, 60*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.OK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "unfinished when the run ended (in no column): cycle 3 (running ") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	r, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	// They hung from before the window's end until the grace period's.
	if c := r.Op(result.CycleOp); c.Unfinished != 3 || c.UnfinishedMaxMS < 300 {
		t.Errorf("%d cycles unfinished, running %.0f ms or more; want 3, at least 300 ms", c.Unfinished, c.UnfinishedMaxMS)
	}
}
