package interrupts

import (
	"context"
	"fmt"
	"os"
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
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestSIGTERMStopsCleanly runs the real command in a child process on
// temp-postgres, sends SIGTERM mid-run, and expects exit 130, the table,
// a saved result, and no cluster left behind.
func TestSIGTERMStopsCleanly(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := clitest.StartQuickTrainEvents(t, "--db", "temp-postgres", "--duration", "60s", "--progress", "500ms", "--json", out)
	err := clitest.InterruptWhen(cmd, stderr, func(s string) bool { return strings.Contains(s, "1.0s |") })
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", code, err, exitcode.Interrupted, stderr.String())
	}
	if !strings.Contains(stdout.String(), "invariants: OK") || !strings.Contains(stdout.String(), "INTERRUPTED") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	r := clitest.LoadResult(t, out)
	if !r.Interrupted || r.Op("cycle").Count == 0 {
		t.Errorf("saved result: interrupted %v, cycles %d", r.Interrupted, r.Op("cycle").Count)
	}
	// This run's cluster, found by its port (other tests run clusters too).
	port := clitest.ServerPort(t, stderr)
	clitest.CheckClusterGone(t, port)
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "txnbench-pg-*", "data", "postmaster.opts"))
	for _, d := range dirs {
		if b, _ := os.ReadFile(d); strings.Contains(string(b), "-p\" \""+port) || strings.Contains(string(b), "-p "+port) {
			t.Errorf("cluster directory left behind: %s", filepath.Dir(filepath.Dir(d)))
		}
	}
}

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
	cmd, _, stderr := clitest.StartQuickTrainEvents(t, "--db", "temp-postgres", "--clients", "2",
		"--duration", "60s", "--progress", "300ms", "--json", out)
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
	cmd, stdout, stderr = clitest.StartQuickTrainEvents(t, append([]string{"--db", cl.URL(), "--json", out}, args...)...)
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	return cmd, stdout, stderr, out, clitest.StopServer(t, cl.Port())
}

// TestSecondInterruptMidRunExits130: two Ctrl-Cs in quick succession mid
// run exit 130 even when the run, its server killed under it, fails
// before the servers are gone. A directory slow to remove (planted in
// the cluster's) keeps the second interrupt's cleanup busy while the run
// fails on the killed server; the exit status must still say interrupted,
// and the run's error is not printed. The window (1 h) outlasts however
// long a loaded machine takes to plant the directory (at load 49 it took
// over the 60 s the window had: the signals landed after it, and no
// "interrupted: stopping clients" came).
func TestSecondInterruptMidRunExits130(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	cmd, _, stderr := clitest.Start(t, "run", "workflow", "--db", "temp-postgres", "--clients", "2", "--signal-workers", "2",
		"--duration", "1h", "--progress", "300ms", "--telemetry", "off")
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	port := clitest.ServerPort(t, stderr)
	n, _ := strconv.Atoi(port)
	ps, _ := os.ReadFile("/proc/" + clitest.OurPostmaster(t, n) + "/cmdline")
	d := regexp.MustCompile(`-D\x00([^\x00]+)/data\x00`).FindSubmatch(ps)
	if d == nil {
		t.Fatalf("no data directory in %q", ps)
	}
	junk := filepath.Join(string(d[1]), "junk")
	for i := 0; i < 200; i++ {
		sub := filepath.Join(junk, strconv.Itoa(i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 100; j++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprint(j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	// The second press once the first is seen, at once: two signals sent
	// before a busy machine schedules the process are delivered as one.
	clitest.WaitFor(t, stderr, 0, "interrupted: stopping clients")
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitExitCode(t, cmd, 60*time.Second, stderr, exitcode.Interrupted)
	if i := strings.Index(stderr.String(), "interrupted again"); i < 0 || strings.Contains(stderr.String()[i:], "\ntxnbench: ") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	clitest.CheckClusterGone(t, port)
	if _, err := os.Stat(string(d[1])); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", d[1], err)
	}
}

// TestInterruptWithReplicas: SIGTERM while a standby is being made
// (pg_basebackup running), mid-run and while a failover promotes a
// standby ends the run with exit 130 and leaves nothing behind: no
// process of the primary's or any standby's, no directory. Each run has
// a TMPDIR of its own, so whatever names it is this run's.
func TestInterruptWithReplicas(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	for _, c := range []struct {
		name  string
		extra []string
		ready func(cmd *exec.Cmd, stderr string) bool
	}{
		{"making a standby", nil, func(cmd *exec.Cmd, _ string) bool {
			return len(clitest.ChildrenNamed(t, cmd.Process.Pid, "pg_basebackup")) > 0
		}},
		{"mid-run", nil, func(_ *exec.Cmd, stderr string) bool { return strings.Contains(stderr, "1.0s |") }},
		{"failing over", []string{"--fault", "1s:failover"}, func(_ *exec.Cmd, stderr string) bool {
			return failoverAt.MatchString(stderr) // 1.0 s, or later on a loaded machine
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := clitest.EnterableTempDir(t, "txnbench-replicas-")
			cmd, _, stderr := clitest.StartWithEnv(t, []string{"TMPDIR=" + tmp}, append(append([]string{"run", "train-events", "--db", "temp-postgres", "--replicas", "2", "--replication", "sync",
				"--duration", "60s", "--progress", "500ms", "--clients", "2"}, c.extra...), clitest.Quick...)...)
			if !testutil.Poll(3*time.Minute, 5*time.Millisecond, func() bool {
				return c.ready(cmd, stderr.String()) || strings.Contains(stderr.String(), "txnbench: ") // it failed: said below
			}) {
				t.Fatalf("never got there:\n%s", stderr)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			clitest.WaitExitCode(t, cmd, time.Minute, stderr, exitcode.Interrupted)
			if left := clitest.ProcessesIn(tmp, ""); len(left) > 0 {
				t.Errorf("processes left behind: %v", left)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("left in TMPDIR: %v", names)
			}
		})
	}
}

// failoverAt is the progress line of the failover fault's start.
var failoverAt = regexp.MustCompile(`fault at [0-9.]+ s: failover`)

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
			took := clitest.WaitExit(t, cmd, duration+grace+15*time.Second, stderr)
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

// TestFrozenServerEndsAShardsWait: a shard waiting for shard 0's load
// mark on a server that stops answering (SIGSTOP) gives up after the
// read's deadline with a one-line error, long before --shard-wait; each
// poll's read waited on the frozen server without limit before.
func TestFrozenServerEndsAShardsWait(t *testing.T) {
	t.Parallel()
	cl := testutil.Postgres(t)
	cmd, _, stderr := clitest.StartQuickTrainEvents(t, "--db", cl.URL(), "--iterations", "4", "--clients", "2",
		"--run-id", "frozen", "--shard", "1/2", "--shard-wait", "10m")
	clitest.WaitFor(t, stderr, 0, `waiting for shard 0 to create the train-events schema`)
	clitest.StopServer(t, cl.Port())
	took := clitest.WaitExit(t, cmd, 30*time.Second+15*time.Second, stderr) // the read's deadline and 15 s
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Failure || !strings.HasPrefix(lines[len(lines)-1], "txnbench: ") {
		t.Errorf("exit %d %.1f s after the freeze, want %d and a one-line error:\n%s", code, took.Seconds(), exitcode.Failure, stderr.String())
	}
	t.Logf("exit %.1f s after the freeze: %s", took.Seconds(), lines[len(lines)-1])
}

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
				took = clitest.WaitExit(t, cmd, promised+5*time.Second, stderr)
			} else {
				took = clitest.WaitExit(t, cmd, 2*time.Minute, stderr)
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

// TestKilledRunSQLiteDirCleaned: a run on a temporary SQLite file killed
// with SIGKILL leaves its txnbench-sqlite-* directory behind; the next run
// removes it (its owner is gone) and then its own at exit.
func TestKilledRunSQLiteDirCleaned(t *testing.T) {
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	killed, _, stderr := clitest.StartWithEnv(t, env, append([]string{"run", "train-events", "--duration", "60s"}, clitest.Quick...)...)
	pattern := filepath.Join(tmp, "txnbench-sqlite-*", "txnbench.db")
	var left []string
	for deadline := time.Now().Add(30 * time.Second); len(left) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		left, _ = filepath.Glob(pattern)
	}
	_ = killed.Process.Signal(syscall.SIGKILL)
	_ = killed.Wait()
	if len(left) != 1 {
		t.Fatalf("the killed run's SQLite directory: %v, want one\nstderr:\n%s", left, stderr.String())
	}
	next := clitest.Command(append([]string{"run", "train-events", "--iterations", "1"}, clitest.Quick...)...)
	next.Env = append(next.Env, env...)
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next run: %v\n%s", err, out)
	}
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "txnbench-sqlite-*")); len(dirs) != 0 {
		t.Errorf("SQLite directories left after the next run: %v", dirs)
	}
}

// TestKilledMariaDBBootstrapSwept: a temp-mariadb run killed with SIGKILL
// while mariadb-install-db runs leaves the bootstrap running (its
// subshells and mariadbd --bootstrap, which no pid file names) in its
// txnbench-mariadb-* directory; the sweep every later start runs
// (localdb.CleanStale) kills them and removes the directory, as it does a
// killed temp-postgres run's. Before, it killed nothing and removed the
// directory under the still-running bootstrap, which wrote it anew: a
// directory no later run removed, and the processes ran on.
func TestKilledMariaDBBootstrapSwept(t *testing.T) {
	testutil.NeedMariaDB(t)
	tmp := clitest.EnterableTempDir(t, "txnbench-sweep-")
	killed, _, stderr := clitest.StartWithEnv(t, []string{"TMPDIR=" + tmp},
		"run", "connect-overhead", "--db", "temp-mariadb", "--rows", "300", "--iterations", "10", "--telemetry", "off")
	var boot map[int]string
	for deadline := time.Now().Add(2 * time.Minute); len(boot) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		boot = clitest.ProcessesIn(tmp, "--bootstrap")
	}
	_ = killed.Process.Signal(syscall.SIGKILL)
	_ = killed.Wait()
	if len(boot) == 0 {
		t.Fatalf("no mariadbd --bootstrap seen in %s\nstderr:\n%s", tmp, stderr.String())
	}
	t.Cleanup(func() { // whatever the sweep left
		for pid := range clitest.ProcessesIn(tmp, "") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	t.Setenv("TMPDIR", tmp)
	time.Sleep(200 * time.Millisecond) // what the kill ends is gone
	localdb.CleanStale()
	if left := clitest.ProcessesIn(tmp, ""); len(left) > 0 {
		t.Errorf("processes still running from the killed run's directory after the sweep: %v", left)
	}
	localdb.CleanStale() // a later run's
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "txnbench-mariadb-*")); len(dirs) != 0 {
		t.Errorf("MariaDB directories left after the sweep: %v", dirs)
	}
}
