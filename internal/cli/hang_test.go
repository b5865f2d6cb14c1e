package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// startTxnbench runs the real command in a child process.
func startTxnbench(t *testing.T, args ...string) (cmd *exec.Cmd, stdout, stderr *syncBuffer) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stdout, stderr
}

// waitFor polls until s holds a match of re after position from, or fails.
func waitFor(t *testing.T, s *syncBuffer, from int, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	if testutil.Poll(60*time.Second, 50*time.Millisecond, func() bool { return rx.MatchString(s.String()[from:]) }) {
		return
	}
	t.Fatalf("no %q within 60 s:\n%s", re, s.String())
}

// waitExit waits for cmd to exit within limit and returns how long it took.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration, stderr *syncBuffer) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running %s after the signal:\n%s", limit, stderr.String())
	}
	return time.Since(start)
}

// ourPostmaster is the pid of the postmaster on port that this test
// started, itself or through the txnbench it runs: a postgres of another
// run (or any process named so) is never it.
func ourPostmaster(t *testing.T, port int) string {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", "postgres .*-p "+strconv.Itoa(port)+"( |$)").Output()
	var pids []string
	for _, p := range strings.Fields(string(out)) {
		if pid, _ := strconv.Atoi(p); descendsFromTest(pid) {
			pids = append(pids, p)
		}
	}
	if len(pids) != 1 {
		t.Fatalf("postmaster on port %d started by this test: pids %q (of %q)", port, pids, out)
	}
	return pids[0]
}

// descendsFromTest reports whether process pid is a child of the test
// process, or of one of its children, and so on.
func descendsFromTest(pid int) bool {
	for range 64 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		// the parent's pid is the second field after the command's ")"
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			return false
		}
		if pid, _ = strconv.Atoi(f[1]); pid == os.Getpid() {
			return true
		} else if pid <= 1 {
			return false
		}
	}
	return false
}

// stopServer SIGSTOPs the cluster listening on port: the postmaster and
// every backend (each its own process group), found by the port among the
// processes the test started. resume SIGCONTs them; so does the end of
// the test, so the cluster can be removed.
func stopServer(t *testing.T, port int) (resume func()) {
	t.Helper()
	pids := []string{ourPostmaster(t, port)}
	kids, _ := exec.Command("pgrep", "-P", pids[0]).Output()
	pids = append(pids, strings.Fields(string(kids))...)
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	resume = func() {
		for _, p := range pids {
			pid, _ := strconv.Atoi(p)
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	return resume
}

// TestInterruptDuringHang: with the server stopped (SIGSTOP), the first
// Ctrl-C prints and saves the result within seconds, says the check could
// not run and counts the ops left hanging as unfinished, and exits 130.
func TestInterruptDuringHang(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	url := cl.URL()
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := startTxnbench(t, append([]string{"run", "train-events", "--db", url, "--clients", "4",
		"--duration", "60s", "--progress", "300ms", "--json", out}, quick...)...)
	waitFor(t, stderr, 0, `\| cycle [1-9]`)
	stopServer(t, cl.Port())
	// Every client is stuck once an interval completes nothing.
	waitFor(t, stderr, len(stderr.String()), `\| cycle 0\.0/s`)
	cmd.Process.Signal(syscall.SIGINT)
	took := waitExit(t, cmd, 20*time.Second, stderr) // the check may wait interruptWait (5 s)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d after %s, want %d\nstderr:\n%s", code, took, exitcode.Interrupted, stderr.String())
	}
	for _, want := range []string{"INTERRUPTED", "invariants: not checked (the server did not answer within 5s)", "unfinished when the run ended"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
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
	cmd, _, stderr := startTxnbench(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--clients", "2",
		"--duration", "60s", "--progress", "300ms", "--json", out}, quick...)...)
	waitFor(t, stderr, 0, `\| cycle [1-9]`)
	m := regexp.MustCompile(`ready on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no port in stderr:\n%s", stderr.String())
	}
	port, _ := strconv.Atoi(m[1])
	stopServer(t, port)
	cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, stderr, 0, "interrupted: stopping clients")
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, 15*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	if !regexp.MustCompile(`interrupted again: stopping the servers txnbench started \(postgres \(pid \d+\)\)`).MatchString(stderr.String()) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	checkClusterGone(t, m[1])
}

// TestHangAtWindowEnd: ops hanging on a stopped server when the window
// ends are cancelled after --grace and counted unfinished, with how long
// they had run, in the table and the JSON.
func TestHangAtWindowEnd(t *testing.T) {
	cl := testutil.Postgres(t)
	url := cl.URL()
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := startTxnbench(t, append([]string{"run", "train-events", "--db", url, "--clients", "3",
		"--duration", "2s", "--grace", "300ms", "--progress", "300ms", "--json", out}, quick...)...)
	waitFor(t, stderr, 0, `\| cycle [1-9]`)
	resume := stopServer(t, cl.Port())
	waitFor(t, stderr, 0, `grace period of 300ms over: cancelled 3 ops still running`)
	resume() // the telemetry and the check can finish
	waitExit(t, cmd, 60*time.Second, stderr)
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

// checkClusterGone fails the test when something still listens on the
// cluster's port or a postgres process on it is left behind.
func checkClusterGone(t *testing.T, port string) {
	t.Helper()
	if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
		c.Close()
		t.Errorf("something still listens on the cluster's port %s", port)
	}
	if ps, _ := exec.Command("pgrep", "-f", "postgres .*-p "+port+"( |$)").Output(); len(bytes.TrimSpace(ps)) > 0 {
		t.Errorf("PostgreSQL processes left behind: %s", ps)
	}
}

// interruptWhen waits up to 30 s for what cmd wrote to stderr to satisfy
// ready, then sends cmd SIGTERM (ready or not) and returns cmd.Wait's
// error.
func interruptWhen(cmd *exec.Cmd, stderr *syncBuffer, ready func(string) bool) error {
	testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool { return ready(stderr.String()) })
	cmd.Process.Signal(syscall.SIGTERM)
	return cmd.Wait()
}
