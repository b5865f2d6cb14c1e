package interrupts

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestSIGTERMStopsCleanly runs the real command in a child process on
// temp-postgres, sends SIGTERM mid-run, and expects exit 130, the table,
// a saved result, and no cluster left behind.
func TestSIGTERMStopsCleanly(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--duration", "60s", "--progress", "500ms", "--json", out}, clitest.Quick...)...)
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
		if b, _ := os.ReadFile(d); bytes.Contains(b, []byte("-p\" \""+port)) || bytes.Contains(b, []byte("-p "+port)) {
			t.Errorf("cluster directory left behind: %s", filepath.Dir(filepath.Dir(d)))
		}
	}
}
