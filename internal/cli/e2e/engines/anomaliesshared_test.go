package engines

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// TestListAppendRunsShareASQLiteFile: two list-append runs at once on one
// SQLite file each check only their own history and find nothing (SQLite
// is serializable). Before, each run's start emptied the lists the other
// was appending to, and the first run reported G0, G1c and
// incompatible-order as violations (exit 3, "data was lost") that no
// transaction of either run made.
func TestListAppendRunsShareASQLiteFile(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "shared.db")
	args := []string{"run", "list-append", "--db", db, "--keys", "2", "--clients", "4", "--duration", "3s"}
	// the first run makes the table, so both overlap in their runs
	if code, _, stderr := clitest.Run(append(args[:len(args):len(args)], "--duration", "100ms")...); code != exitcode.OK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	first, out1, err1 := clitest.Start(t, args...)
	clitest.WaitFor(t, err1, 0, `txn [0-9,.]+/s`)
	code2, out2, stderr2 := clitest.Run(append(args[:len(args):len(args)], "--duration", "1s")...)
	first.Wait()
	code1 := first.ProcessState.ExitCode()
	for i, r := range []struct {
		code        int
		out, stderr string
	}{{code1, out1.String(), err1.String()}, {code2, out2, stderr2}} {
		if r.code != exitcode.OK || !strings.Contains(r.out, "anomalies: none in ") {
			t.Errorf("run %d: exit %d, want 0 and no anomaly in its own history:\n%s\n%s", i+1, r.code, r.out, r.stderr)
		}
	}
}
