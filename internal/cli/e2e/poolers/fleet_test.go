package poolers

import (
	"path/filepath"
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

// killPoolerMidRun runs train-events through --poolers n PgBouncers, at
// a --rate (the clients need only come through the poolers, not at full
// speed), SIGKILLs one of them from outside once cycles complete, and
// returns the saved result and stdout after checking the run exited 0.
func killPoolerMidRun(t *testing.T, n int) (*result.Result, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--via", "pgbouncer",
		"--poolers", strconv.Itoa(n), "--pgbouncer-pool-size", "4", "--clients", "4", "--duration", "3s", "--rate", "30", "--progress", "300ms", "--json", out}, clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	pids := clitest.BouncersOf(t, cmd.Process.Pid)
	if len(pids) != n {
		t.Fatalf("pgbouncers of txnbench: %v, want %d", pids, n)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	clitest.WaitExit(t, cmd, 60*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.OK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	r := clitest.LoadResult(t, out)
	if r.Invariants == nil || !r.Invariants.OK {
		t.Errorf("invariants %+v", r.Invariants)
	}
	var died []result.Fault
	for _, f := range r.Faults {
		if f.Kind == "died" && !f.Injected {
			died = append(died, f)
		}
	}
	if len(died) != 1 || !strings.HasPrefix(died[0].Target, "pooler") || !strings.Contains(died[0].Note, "started it again") {
		t.Errorf("faults %+v: want the pooler's death, restarted", r.Faults)
	}
	return r, stdout.String()
}

// TestKilledPgBouncerIsRestarted: txnbench's own PgBouncer killed mid-run
// is started again, the death is on the timeline, nothing is lost and the
// run exits 0.
func TestKilledPgBouncerIsRestarted(t *testing.T) {
	t.Parallel()
	testutil.NeedPgBouncer(t)
	r, _ := killPoolerMidRun(t, 1)
	if r.Faults[0].Target != "pooler" {
		t.Errorf("target %q, want pooler", r.Faults[0].Target)
	}
}

// TestPoolerFleet runs train-events through two PgBouncers behind HAProxy
// and kills one mid-run: the clients fail over, nothing is lost, the run
// exits 0; the report names the fleet, sums the members' counters and
// shows HAProxy's view of each.
func TestPoolerFleet(t *testing.T) {
	t.Parallel()
	testutil.NeedHAProxy(t)
	r, stdout := killPoolerMidRun(t, 2)
	p := r.Pooler
	if p == nil || !strings.Contains(p.Name, "x2 behind HAProxy 2.") || len(p.Members) != 2 || p.Proxy == nil || len(p.Proxy.Servers) != 2 {
		t.Fatalf("pooler %+v", p)
	}
	var sum, sessions int64
	restarted := 0
	for _, m := range p.Members {
		sum += m.Stats["total_xact_count"]
		if strings.Contains(m.Note, "restarted during the run") {
			restarted++
		}
	}
	if restarted != 1 {
		t.Errorf("members %+v: want one restarted", p.Members)
	}
	for _, s := range p.Proxy.Servers {
		sessions += s.Sessions
	}
	if sum == 0 || p.Stats["total_xact_count"] != sum || sessions == 0 {
		t.Errorf("transactions %d, members' sum %d, HAProxy sessions %d", p.Stats["total_xact_count"], sum, sessions)
	}
	if r.Telemetry == nil || r.Telemetry.Pooler["total_xact_count"] <= 0 {
		t.Errorf("telemetry %+v: want the members' counters summed per interval", r.Telemetry)
	}
	if !strings.HasPrefix(r.Faults[0].Target, "pooler ") || !strings.HasSuffix(r.Faults[0].Target, " of 2") {
		t.Errorf("target %q, want pooler N of 2", r.Faults[0].Target)
	}
	plain.Contains(t, "stdout", stdout, "x2 behind HAProxy", "pooler1 ", "pooler2 ", "failed checks", "leastconn, pgsql-check inter 1s fall 2 rise 2")
}
