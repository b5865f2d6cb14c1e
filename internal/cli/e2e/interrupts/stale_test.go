package interrupts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestKilledRunSQLiteDirCleaned: a run on a temporary SQLite file killed
// with SIGKILL leaves its txnbench-sqlite-* directory behind; the next run
// removes it (its owner is gone) and then its own at exit.
func TestKilledRunSQLiteDirCleaned(t *testing.T) {
	tmp := t.TempDir()
	child := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1", "TMPDIR="+tmp)
		return cmd
	}
	killed := child(append([]string{"run", "train-events", "--duration", "60s"}, clitest.Quick...)...)
	var stderr bytes.Buffer
	killed.Stderr = &stderr
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
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
	if out, err := child(append([]string{"run", "train-events", "--iterations", "1"}, clitest.Quick...)...).CombinedOutput(); err != nil {
		t.Fatalf("the next run: %v\n%s", err, out)
	}
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "txnbench-sqlite-*")); len(dirs) != 0 {
		t.Errorf("SQLite directories left after the next run: %v", dirs)
	}
}
