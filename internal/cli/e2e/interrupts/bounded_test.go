package interrupts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestInterruptIsBounded: Ctrl-C while the server is frozen (SIGSTOP, the
// postmaster and its backends, or mariadbd), or killed and being
// restarted, prints and saves the result and exits 130 promptly on every
// engine, through PgBouncer too: all that
// follows the interrupt shares one budget (3 s promised). Before, the
// steps had timeouts of their own that added up: the check's 5 s, then
// the run table's last word with 2 s of its own (7 s on a server given by
// URL), a pool's close waiting 15 s for its sessions' cancel requests
// (17 s with --conn pool), the record of a killed server's death waiting
// for its restart, a kill-server fault's restart waited for by the
// faults' timeline (as long as the server takes to start: a wrapper in
// --pg-bin makes that start 30 s), then PgBouncer's safe shutdown waiting
// 5 s for the frozen server (10.4 s); and a check that could not reach
// a server killed just before the interrupt (mariadbd, not yet restarted)
// ended the run with exit 1 where it is not checked, exit 130.
//
// The server answers nothing, so every second from SIGINT to the result
// is txnbench's own: the bounds are the promise and 1.5 s for a loaded
// machine (the result saved), and 4 s more for stopping what it started
// (resuming a frozen server and shutting it down); the allowances grow
// with the load per core, up to 3x (plain.Slack), the promise does not.
func TestInterruptIsBounded(t *testing.T) {
	t.Parallel()
	saveWithin, exitAfterSave := 3*time.Second+plain.Slack(1500*time.Millisecond), plain.Slack(4*time.Second)
	frozen := func(t *testing.T, pid int, name string) []int {
		var pids []int
		for _, p := range clitest.ChildrenNamed(t, pid, name) {
			pids = append(append(pids, p), clitest.ChildrenNamed(t, p, "")...)
		}
		return pids
	}
	cases := []struct {
		name string
		need func(testing.TB)
		args []string
		proc string // the server process, a child of txnbench; "" for --db URL
		kill bool   // SIGKILL, not SIGSTOP: supervision is restarting it at the interrupt
		// a kill-server fault is restarting it at the interrupt, and the
		// start takes 30 s (a --pg-bin whose postgres sleeps first)
		slowStart bool
	}{
		{"url", testutil.NeedPostgres, nil, "", false, false},
		{"temp-postgres", testutil.NeedPostgres, []string{"--db", "temp-postgres"}, "postgres", false, false},
		{"temp-postgres pool", testutil.NeedPostgres, []string{"--db", "temp-postgres", "--conn", "pool"}, "postgres", false, false},
		{"via pgbouncer", testutil.NeedPgBouncer, []string{"--db", "temp-postgres", "--via", "pgbouncer"}, "postgres", false, false},
		{"temp-mariadb", testutil.NeedMariaDB, []string{"--db", "temp-mariadb"}, "mariadbd", false, false},
		{"temp-postgres killed", testutil.NeedPostgres, []string{"--db", "temp-postgres"}, "postgres", true, false},
		{"temp-mariadb killed", testutil.NeedMariaDB, []string{"--db", "temp-mariadb"}, "mariadbd", true, false},
		{"temp-postgres fault restarting", testutil.NeedPostgres, []string{"--db", "temp-postgres", "--fault", "2s:kill-server:200ms"}, "postgres", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.need(t)
			args := c.args
			var stop func() []int
			if c.proc == "" {
				cl := testutil.Postgres(t)
				args = []string{"--db", cl.URL()}
				stop = func() []int { clitest.StopServer(t, cl.Port()); return []int{1} }
			}
			var slow string // once there, the next start of postgres is slow
			if c.slowStart {
				var bin string
				bin, slow = slowPostgres(t)
				args = append(args, "--pg-bin", bin)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			cmd, stdout, stderr := clitest.Start(t, append(append([]string{"run", "train-events", "--clients", "2",
				"--duration", "60s", "--progress", "300ms", "--json", out}, args...), clitest.Quick...)...)
			clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
			if c.slowStart {
				if err := os.WriteFile(slow, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				clitest.WaitFor(t, stderr, 0, `fault at [0-9.]+ s: kill-server`)
				stop = func() []int { return restarting(t, cmd.Process.Pid) }
			} else if c.proc != "" {
				stop = func() []int {
					pids := frozen(t, cmd.Process.Pid, c.proc)
					for _, p := range pids {
						if c.kill {
							syscall.Kill(p, syscall.SIGKILL)
						} else {
							syscall.Kill(p, syscall.SIGSTOP)
						}
					}
					t.Cleanup(func() {
						for _, p := range pids {
							syscall.Kill(p, syscall.SIGCONT)
						}
					})
					return pids
				}
			}
			if len(stop()) == 0 {
				t.Fatalf("no %s to freeze:\n%s", c.proc, stderr.String())
			}
			if !c.kill { // every client is stuck once an interval completes nothing
				clitest.WaitFor(t, stderr, len(stderr.String()), `\| cycle 0\.0/s`)
			}
			sent := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			var saved time.Duration
			testutil.Poll(saveWithin+exitAfterSave+10*time.Second, 10*time.Millisecond, func() bool {
				saved = time.Since(sent)
				return strings.Contains(stderr.String(), "result saved to ")
			})
			took := saved + clitest.WaitExit(t, cmd, exitAfterSave+20*time.Second, stderr)
			t.Logf("saved %.2f s, exit %.2f s after SIGINT", saved.Seconds(), took.Seconds())
			if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
			}
			if saved > saveWithin || took-saved > exitAfterSave {
				t.Errorf("saved %.2f s after SIGINT (want within %s), exit %.2f s after that (want within %s)\nstderr:\n%s",
					saved.Seconds(), saveWithin, (took - saved).Seconds(), exitAfterSave, stderr.String())
			}
			if !c.kill && !strings.Contains(stdout.String(), "\ninvariants: not checked (the server did not answer") {
				t.Errorf("stdout lacks the check's not checked:\n%s", stdout.String())
			}
			r := clitest.LoadResult(t, out)
			if c.slowStart && (len(r.Faults) != 1 || r.Faults[0].Note != fault.UnderWay) {
				t.Errorf("saved faults %+v, want the kill-server noted %q", r.Faults, fault.UnderWay)
			}
			if !r.Interrupted || r.Invariants == nil || (!c.kill && r.Invariants.NotChecked == "") || r.Op(result.CycleOp).Count == 0 {
				t.Errorf("saved: interrupted %v, invariants %+v, %d cycles", r.Interrupted, r.Invariants, r.Op(result.CycleOp).Count)
			}
		})
	}
}

// slowPostgres is a --pg-bin directory whose postgres is the installed
// one, started 30 s late once the file slow exists: a restart the test
// makes as slow as a PostgreSQL start can be on a loaded machine. The
// server's user (txnbench runs it unprivileged as root) enters it.
func slowPostgres(t *testing.T) (bin, slow string) {
	t.Helper()
	real, err := localdb.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	bin = t.TempDir()
	for d := bin; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	slow = filepath.Join(bin, "slow")
	script := fmt.Sprintf("#!/bin/sh\nif [ -e %s ]; then sleep 30; fi\nexec %s \"$@\"\n", slow, filepath.Join(real, "postgres"))
	if err := os.WriteFile(filepath.Join(bin, "postgres"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "initdb"), filepath.Join(bin, "initdb")); err != nil {
		t.Fatal(err)
	}
	return bin, slow
}

// restarting waits until txnbench (pid) is starting postgres again
// through slowPostgres's wrapper, sleeping, and returns the wrapper.
func restarting(t *testing.T, pid int) []int {
	t.Helper()
	var wrapper []int
	testutil.Poll(30*time.Second, 10*time.Millisecond, func() bool {
		for _, p := range clitest.ChildrenNamed(t, pid, "postgres") {
			if len(clitest.ChildrenNamed(t, p, "sleep")) > 0 {
				wrapper = []int{p}
				return true
			}
		}
		return false
	})
	return wrapper
}
