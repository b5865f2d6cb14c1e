package faults

import (
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPoolServesTenThousandClients: 10,000 clients over 8 pooled
// connections (the runner's worker mode) do the exact work asked, every
// transaction waits for its connection in turn, and the pool's statistics
// count those waits.
func TestPoolServesTenThousandClients(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	out := filepath.Join(testutil.Artifacts(t), t.Name()+".json")
	clitest.MustRun(t, "run", "connect-overhead", "--query", "select1", "--rows", "0", "--db", dbURL,
		"--conn", "pool", "--pool-max", "8", "--clients", "10000", "--iterations", "20000",
		"--progress", "1h", "--telemetry", "off", "--json", out)
	r := clitest.LoadResult(t, out)
	counts := map[string]int64{}
	for _, o := range r.Ops {
		counts[o.Name] = o.Count
		if o.ErrorCount() != 0 || o.Unfinished != 0 {
			t.Errorf("op %s: errors %v, %d unfinished", o.Name, o.Errors, o.Unfinished)
		}
	}
	if counts[result.CycleOp] != 20000 || counts["pool_wait"] != 20000 {
		t.Errorf("op counts %v: want 20000 cycles, each with its pool wait", counts)
	}
	if p := r.Pool; p == nil || p.MaxConns != 8 || p.Acquires != 20000 || p.EmptyAcquires < 10000 || p.WaitS <= 0 {
		t.Errorf("pool stats %+v: want 8 connections, 20000 acquires, most of them waiting", p)
	}
}

// TestPoolOfManyClientsRecoversFromARestart: with more clients than the
// pool has connections, a server restarted mid-run is survived: clients
// back off on timers without holding the pool's places, ops succeed again
// after it, and nothing is lost. The run lasts until it says a cycle begun
// after the restart succeeded, however long a busy machine takes (a 5 s
// window was not enough under load: nothing succeeded in it), and is then
// interrupted.
func TestPoolOfManyClientsRecoversFromARestart(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(testutil.Artifacts(t), t.Name()+".json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--conn", "pool", "--pool-max", "4",
		"--clients", "200", "--duration", "1h", "--progress", "1s", "--telemetry", "off", "--json", out,
		"--fault", "2s:restart-server"}, clitest.Quick...)...)
	recovered := regexp.MustCompile(`\(restart-server\): a cycle begun after it succeeded`)
	if !testutil.Poll(5*time.Minute, 100*time.Millisecond, func() bool { return recovered.MatchString(stderr.String()) }) {
		t.Fatalf("no cycle succeeded after the restart within 5 minutes:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	clitest.WaitExit(t, cmd, 2*time.Minute, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d, want %d (interrupted): %s\n%s", code, exitcode.Interrupted, stderr.String(), stdout.String())
	}
	if !strings.Contains(stdout.String(), "invariants: OK") {
		t.Errorf("invariants not OK:\n%s", stdout.String())
	}
	r := clitest.LoadResult(t, out)
	if len(r.Faults) != 1 || !r.Faults[0].Injected || r.Faults[0].Recovery == nil || r.Faults[0].Recovery.FirstOKS == nil {
		t.Fatalf("the restart is not injected, or nothing succeeded after it: %+v", r.Faults)
	}
	if p := r.Pool; p == nil || p.EmptyAcquires == 0 {
		t.Errorf("pool stats %+v: want waits for the 4 connections", p)
	}
}
