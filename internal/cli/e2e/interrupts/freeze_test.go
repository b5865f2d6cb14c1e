package interrupts

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestFrozenProcessEndsTheRun freezes (SIGSTOP) each kind of process
// txnbench starts, once the run's cycles complete, and holds it frozen
// until the test ends: the run still ends within its window, grace and
// 15 s, with an exit status and a verdict (an invariants line, or a
// one-line error). Before every read of a server, pooler and proxy had a
// deadline, a frozen PgBouncer's final SHOW POOLS (and the invariant
// check's connection through it) waited for as long as it was stopped,
// and HAProxy's TCP check kept a frozen member in rotation.
// The four runs are independent (each its own server and poolers) and
// mostly wait out deadlines: they run side by side, at a --rate (what
// ends a run is the frozen process, not the clients' pace).
func TestFrozenProcessEndsTheRun(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	const duration, grace = 4 * time.Second, 2 * time.Second
	server := func(t *testing.T, pid int) []int {
		pm := clitest.ChildrenNamed(t, pid, "postgres")
		if len(pm) != 1 {
			t.Fatalf("postmasters of txnbench: %v", pm)
		}
		return append(pm, clitest.ChildrenNamed(t, pm[0], "")...)
	}
	cases := []struct {
		name   string
		args   []string
		freeze func(t *testing.T, pid int) []int
		want   string // in stdout, besides the verdict
	}{
		{"server", nil, server, "\ninvariants: not checked (the server did not answer within 5s)"},
		{"pgbouncer", []string{"--via", "pgbouncer", "--pgbouncer-pool-size", "4"}, func(t *testing.T, pid int) []int {
			return clitest.BouncersOf(t, pid)
		}, "\ninvariants: OK"},
		{"fleet member", []string{"--via", "pgbouncer", "--pgbouncer-pool-size", "4", "--poolers", "2"}, func(t *testing.T, pid int) []int {
			if b := clitest.BouncersOf(t, pid); len(b) == 2 {
				return b[:1]
			}
			return nil
		}, "\ninvariants: OK"},
		{"haproxy", []string{"--via", "pgbouncer", "--pgbouncer-pool-size", "4", "--poolers", "2"}, func(t *testing.T, pid int) []int {
			return clitest.ChildrenNamed(t, pid, "haproxy")
		}, "\ninvariants: OK"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if len(c.args) > 0 {
				testutil.NeedPgBouncer(t)
			}
			if strings.Contains(strings.Join(c.args, " "), "--poolers") {
				testutil.NeedHAProxy(t)
			}
			args := append([]string{"run", "train-events", "--db", "temp-postgres", "--clients", "4", "--rate", "30",
				"--duration", duration.String(), "--grace", grace.String(), "--progress", "300ms"}, c.args...)
			cmd, stdout, stderr := clitest.Start(t, append(args, clitest.Quick...)...)
			clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
			pids := c.freeze(t, cmd.Process.Pid)
			if len(pids) == 0 {
				t.Fatalf("nothing to freeze:\n%s", stderr.String())
			}
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGSTOP)
			}
			t.Cleanup(func() {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGCONT)
				}
			})
			// The window has at most its duration left.
			took := waitExitOrDump(t, cmd, duration+grace+15*time.Second, stderr)
			code := cmd.ProcessState.ExitCode()
			t.Logf("exit %d %.1f s after the freeze\nstdout:\n%s\nstderr:\n%s", code, took.Seconds(), stdout.String(), stderr.String())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			verdict := strings.Contains(stdout.String(), "\ninvariants: ") || strings.HasPrefix(lines[len(lines)-1], "txnbench: ")
			if code < 0 || !verdict {
				t.Errorf("exit %d, no verdict", code)
			}
			if !strings.Contains(stdout.String(), c.want) {
				t.Errorf("stdout lacks %q", c.want)
			}
			// HAProxy's protocol check failed the frozen member: its line
			// says so, beside its unread console.
			if c.name == "fleet member" && !regexp.MustCompile(`pooler\d +\w+, .* [1-9]\d* failed checks, .*its admin console could not be read`).MatchString(stdout.String()) {
				t.Errorf("no line of a member with failed checks and an unread console")
			}
		})
	}
}

// waitExitOrDump waits for cmd to exit within limit and returns how long
// it took; past limit it fails with what cmd was doing (SIGQUIT makes a
// Go program print its goroutines).
func waitExitOrDump(t *testing.T, cmd *exec.Cmd, limit time.Duration, stderr *clitest.Buffer) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return time.Since(start)
	case <-time.After(limit):
	}
	cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	t.Fatalf("still running %s after the freeze:\n%s", limit, stderr.String())
	return 0
}

// TestFrozenServerEndsAShardsWait: a shard waiting for shard 0's load
// mark on a server that stops answering (SIGSTOP) gives up after the
// read's deadline with a one-line error, long before --shard-wait; each
// poll's read waited on the frozen server without limit before.
func TestFrozenServerEndsAShardsWait(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	cmd, _, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", cl.URL(), "--iterations", "4", "--clients", "2",
		"--run-id", "frozen", "--shard", "1/2", "--shard-wait", "10m"}, clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `waiting for shard 0 to create the train-events schema`)
	clitest.StopServer(t, cl.Port())
	took := waitExitOrDump(t, cmd, 30*time.Second+15*time.Second, stderr) // the read's deadline and 15 s
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Failure || !strings.HasPrefix(lines[len(lines)-1], "txnbench: ") {
		t.Errorf("exit %d %.1f s after the freeze, want %d and a one-line error:\n%s", code, took.Seconds(), exitcode.Failure, stderr.String())
	}
	t.Logf("exit %.1f s after the freeze: %s", took.Seconds(), lines[len(lines)-1])
}
