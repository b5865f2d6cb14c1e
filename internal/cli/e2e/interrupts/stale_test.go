package interrupts

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/testutil"
)

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
	var boot []int
	for deadline := time.Now().Add(2 * time.Minute); len(boot) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		boot = running(tmp, "--bootstrap")
	}
	_ = killed.Process.Signal(syscall.SIGKILL)
	_ = killed.Wait()
	if len(boot) == 0 {
		t.Fatalf("no mariadbd --bootstrap seen in %s\nstderr:\n%s", tmp, stderr.String())
	}
	t.Cleanup(func() { // whatever the sweep left
		for _, pid := range running(tmp, "") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	t.Setenv("TMPDIR", tmp)
	time.Sleep(200 * time.Millisecond) // what the kill ends is gone
	localdb.CleanStale()
	if left := running(tmp, ""); len(left) > 0 {
		t.Errorf("processes still running from the killed run's directory after the sweep: %v", left)
	}
	localdb.CleanStale() // a later run's
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "txnbench-mariadb-*")); len(dirs) != 0 {
		t.Errorf("MariaDB directories left after the sweep: %v", dirs)
	}
}

// running lists the processes whose command line names dir and holds arg.
func running(dir, arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(dir+"/")) && bytes.Contains(b, []byte(arg)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
