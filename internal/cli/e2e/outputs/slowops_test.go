package outputs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// TestRunShowsAndSavesSlowOps: a run prints the slowest run of each op
// under the table, saves all the slow ops in its JSON, and report shows
// them again from the file. On SQLite they have only their times.
func TestRunShowsAndSavesSlowOps(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--iterations", "20", "--clients", "2", "--seed", "7", "--json", out}, clitest.Quick...)
	stdout, stderr := clitest.MustRun(t, args...)
	if !strings.Contains(stdout, "\nslowest    cycle: ") || !strings.Contains(stdout, "add: ") {
		t.Errorf("output lacks the slowest ops:\n%s", stdout)
	}
	r := clitest.LoadResult(t, out)
	ops := map[string]int{}
	for _, o := range r.SlowOps {
		ops[o.Op]++
		if o.LatencyMS <= 0 || o.BackendPID != 0 || len(o.Waits) != 0 {
			t.Errorf("saved slow op %+v", o)
		}
	}
	if ops["cycle"] < 5 || ops["add"] < 5 || ops["process"] < 5 || ops["archive"] < 5 {
		t.Errorf("saved slow ops per op: %v, want the 5 slowest of each", ops)
	}
	code, rendered, stderr := clitest.Run("report", out)
	if code != exitcode.OK || !strings.Contains(rendered, "\nslowest    cycle: ") {
		t.Errorf("report: exit %d %s\n%s", code, stderr, rendered)
	}
}
