package engines

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestListAppendRunsShareATable: two list-append runs at once on one
// table, in one SQLite file and in one PostgreSQL database (TestMariaDB
// runs it on MariaDB), each check only their own history and find
// nothing (both are serializable). Before, each run's start emptied the
// lists the other was appending to: on SQLite the first run reported G0,
// G1c and incompatible-order as violations (exit 3, "data was lost")
// that no transaction of either run made; on PostgreSQL neither was
// checked (each said the other wrote these tables at the same time).
func TestListAppendRunsShareATable(t *testing.T) {
	for _, db := range []string{"sqlite:" + filepath.Join(t.TempDir(), "shared.db"), testutil.SharedPostgres(t)} {
		twoListAppendRuns(t, db)
	}
}

// twoListAppendRuns runs list-append twice at once on db, at serializable:
// each must find none in its own history, exit 0.
func twoListAppendRuns(t *testing.T, db string) {
	t.Helper()
	args := []string{"run", "list-append", "--db", db, "--isolation", "serializable", "--keys", "2", "--clients", "4", "--duration", "3s"}
	// a first run makes the table, so the two overlap in their runs
	clitest.MustRun(t, append(args[:len(args):len(args)], "--duration", "100ms")...)
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
			t.Errorf("%s, run %d: exit %d, want 0 and no anomaly in its own history:\n%s\n%s", target.MaskURL(db), i+1, r.code, r.out, r.stderr)
		}
	}
}
