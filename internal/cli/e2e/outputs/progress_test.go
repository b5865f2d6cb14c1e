package outputs

import (
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestProgressDefaultFollowsDuration: without --progress, a run shorter
// than 10 s is still cut into intervals (a tenth of its duration or
// less), so its charts over time have more than one point.
func TestProgressDefaultFollowsDuration(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	clitest.MustRun(t, "run", "connect-overhead", "--db", "sqlite:"+filepath.Join(dir, "c.db"),
		"--clients", "1", "--duration", "1s", "--json", out)
	r := clitest.LoadResult(t, out)
	// 100 ms intervals: 10, fewer only if ticks were late on a busy machine
	if len(r.Intervals) < 3 {
		t.Errorf("%d intervals in a 1 s run without --progress, want about 10", len(r.Intervals))
	}
}
