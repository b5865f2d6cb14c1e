package outputs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// limitedBy runs the binary with args plus --json, and returns the
// result's stored limit, failing unless the run's footer prints the same
// line.
func limitedBy(t *testing.T, args ...string) *result.Limit {
	t.Helper()
	js := filepath.Join(t.TempDir(), "r.json")
	code, out, stderr := clitest.RunBinary(t, append(args, "--json", js)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := clitest.LoadResult(t, js)
	if r.LimitedBy == nil {
		t.Fatalf("no limited_by in the JSON\n%s", out)
	}
	if !strings.Contains(out, "\nlimited by: "+r.LimitedBy.String()+"\n") {
		t.Errorf("the footer does not say the stored %q:\n%s", r.LimitedBy.String(), out)
	}
	return r.LimitedBy
}

// TestLimitedByConnections: more clients connecting per transaction than
// the server's max_connections leaves for them are refused, and the run
// says connections bound it, naming the setting.
func TestLimitedByConnections(t *testing.T) {
	testutil.NeedPostgres(t)
	l := limitedBy(t, "run", "connect-overhead", "--db", "temp-postgres", "--pg-conf", "max_connections=10", "--conn", "per-txn",
		"--clients", "16", "--iterations", "200", "--rows", "200", "--telemetry", "off")
	if l.Part != "connections" || !strings.Contains(l.Line, "max_connections=10") {
		t.Errorf("limited by %+v, want connections (max_connections=10)", l)
	}
}

// TestLimitedByLockWaits: four clients update one row, each holding its
// lock 20 ms: three of four wait on it at any moment, and the run says
// lock waits bound it. Fixed work, 80 transactions.
func TestLimitedByLockWaits(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	c := testutil.Session(t, testutil.Open(t, dbURL))
	for _, q := range []string{"DROP TABLE IF EXISTS limits_hot", "CREATE TABLE limits_hot (id int PRIMARY KEY, v int)", "INSERT INTO limits_hot VALUES (1, 0)"} {
		if _, err := c.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(t.TempDir(), "hot.sql")
	if err := os.WriteFile(script, []byte("BEGIN;\nUPDATE limits_hot SET v = v + 1 WHERE id = 1;\nSELECT pg_sleep(0.02);\nEND;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := limitedBy(t, "run", "script", "--db", dbURL, "-f", script, "--clients", "4", "--iterations", "80", "--telemetry-sample", "10ms")
	if l.Part != "locks" || !strings.HasPrefix(l.Line, "lock waits (Lock:") {
		t.Errorf("limited by %+v, want lock waits", l)
	}
}

// TestLimitedByNetworkProxy: through a --network proxy that holds every
// round trip 500 ms, a script of four trivial statements (one round trip
// each with the simple protocol, counted by pg_stat_statements) takes the
// proxy's round trips and little else, and the run says round trips bound
// it, naming the proxy. The margin is the test's: the rule needs the asked
// round trips (4 x 500 ms) to be half a transaction's mean, so only more
// than 2 s a transaction of other delays would take it (beside other tests
// at load 50, each statement took about 200 ms more than its round trip,
// and a client's first transaction its login's four round trips more); the
// proxy forwards 2 clients' few bytes, far below its CPU rule's 25% of the
// machine; and the asked delay is the clock's, which other processes on
// the cores do not lengthen (the rule comes before the machine's). Fixed
// work, 16 transactions.
func TestLimitedByNetworkProxy(t *testing.T) {
	testutil.NeedPostgres(t)
	script := filepath.Join(t.TempDir(), "four.sql")
	if err := os.WriteFile(script, []byte("SELECT abs(1);\nSELECT abs(2);\nSELECT abs(3);\nSELECT abs(4);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := limitedBy(t, "run", "script", "--db", "temp-postgres", "-f", script, "--network", "rtt=500ms", "--clients", "2", "--iterations", "16")
	if l.Part != "round trips" || !strings.HasPrefix(l.Line, "round trips (500 ms x 4 statements of a ") || !strings.Contains(l.Line, "the --network proxy's rtt=500ms") {
		t.Errorf("limited by %+v, want the --network proxy's round trips", l)
	}
}

// TestLimitedByOtherProcesses: with two busy loops per core that the test
// starts beside the run, the machine's cores are shared with processes
// not the run's, and the run says so.
func TestLimitedByOtherProcesses(t *testing.T) {
	for range 2 * runtime.NumCPU() {
		spin := exec.Command("sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = spin.Process.Kill(); _ = spin.Wait() })
	}
	args := append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "t.db"), "--clients", "2", "--duration", "2s", "--warmup", "0s"}, clitest.Quick...)
	if l := limitedBy(t, args...); l.Part != "machine" || !strings.Contains(l.Line, "not this run's") {
		t.Errorf("limited by %+v, want the machine shared with other processes", l)
	}
}

// TestLimitedByPgBouncerCPU: PgBouncer's one thread at its core names
// PgBouncer, and, the cores shared with the rest of the run, says it is
// this machine's limit. PgBouncer at full speed on a shared 2-core machine
// is not the slowest part by itself (the server and the clients share the
// cores with it), so the test makes it so: its PgBouncer runs under
// valgrind (memcheck: each instruction tens of times dearer), with a TLS
// handshake for every transaction (--conn per-txn --tls), which PgBouncer
// makes and the pooled server connections do not; and the run goes in a
// session of its own whose scheduling group has nice -20, and its
// processes nice -20 too, so that other work on the machine (the other
// tests, two busy loops per core) cannot take the core PgBouncer would
// use. Both, because a machine without autogroups (sched_autogroup_enabled
// 0, or the processes in a cgroup of their own, as on a CI runner)
// schedules by the processes' nice alone: there, with the group's nice
// only, PgBouncer got 38% of a core beside four busy loops. The margin is what the test set: the
// pooler needs 85% of a core, and with every handshake ten times dearer
// than the clients' it has work the whole window.
func TestLimitedByPgBouncerCPU(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	valgrind, err := exec.LookPath("valgrind")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs valgrind: %v", err)
		}
		t.Skipf("valgrind missing: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot give the run's scheduling group nice -20")
	}
	bouncer := "/usr/sbin/pgbouncer"
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		bouncer = p
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // txnbench runs PgBouncer as an unprivileged user
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wrapper := filepath.Join(dir, "pgbouncer")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+valgrind+" -q --tool=memcheck --log-file=/dev/null "+bouncer+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "r.json")
	cmd := clitest.Command("run", "connect-overhead", "--db", "temp-postgres", "--via", "pgbouncer", "--pgbouncer-bin", wrapper,
		"--tls", "--conn", "per-txn", "--query", "select1", "--clients", "8", "--duration", "3s", "--telemetry", "off", "--json", js)
	nice, err := exec.LookPath("nice")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Path, cmd.Args = nice, append([]string{"nice", "-n", "-20"}, cmd.Args...) // nice execs txnbench in its own process
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/autogroup", cmd.Process.Pid), []byte("-20"), 0); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the run's scheduling group: %v", err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	r := clitest.LoadResult(t, js)
	t.Logf("PgBouncer's CPU %+v, run queue %+v", r.CPU.Part("PgBouncer"), r.CPU.RunQueue)
	l := r.LimitedBy
	if l == nil || l.Part != "pooler" || !strings.HasPrefix(l.Line, "PgBouncer CPU (one thread at ") {
		t.Fatalf("limited by %+v, want PgBouncer CPU (PgBouncer's CPU %+v)\n%s", l, r.CPU.Part("PgBouncer"), out.String())
	}
	if !strings.Contains(out.String(), "\nlimited by: "+l.String()+"\n") {
		t.Errorf("the footer does not say the stored %q:\n%s", l.String(), out.String())
	}
	if l.ThisMachine != (r.CPU.MachineBusy >= result.LimitSaturated) {
		t.Errorf("this machine's: %v with the machine %.0f%% busy", l.ThisMachine, 100*r.CPU.MachineBusy)
	}
}

// TestLimitedByStalls: the server frozen (hang-server, SIGSTOP) for 3 s
// of a 5 s window completes no transaction in at least 2.5 s of it (the
// progress intervals wholly inside the hang, 0.5 s each), over the
// quarter the rule needs, and the run says the stalls bound it, naming
// the fault; on each server engine. Before, the parts that did run
// decided: "no part at its limit: the clients' own pace" for a pooler
// frozen half the run.
func TestLimitedByStalls(t *testing.T) {
	for _, db := range []string{"temp-postgres", "temp-mariadb"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			if db == "temp-mariadb" {
				testutil.NeedMariaDB(t)
			} else {
				testutil.NeedPostgres(t)
			}
			args := append([]string{"run", "train-events", "--db", db, "--clients", "2", "--duration", "5s", "--progress", "500ms",
				"--fault", "1s:hang-server:3s", "--telemetry", "off"}, clitest.Quick...)
			l := limitedBy(t, args...)
			if l.Part != "stalls" || !strings.HasPrefix(l.Line, "stalls (no transaction completed in ") || !strings.Contains(l.Line, "the faults then: hang-server at 1.0 s") {
				t.Errorf("limited by %+v, want the stalls of the hang", l)
			}
		})
	}
}
