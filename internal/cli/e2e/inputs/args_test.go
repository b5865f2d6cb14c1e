package inputs

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestRecordedArgsAreMains: a result records the command line Main was
// given (as "txnbench ..."), not the process's os.Args, so a run started
// in-process (a test, a future embedding) records its own command.
func TestRecordedArgsAreMains(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--iterations", "5", "--clients", "1", "--json", out}, clitest.Quick...)
	clitest.MustRun(t, args...)
	r := clitest.LoadResult(t, out)
	if want := append([]string{"txnbench"}, args...); !slices.Equal(r.Config.Args, want) {
		t.Errorf("recorded args %q, want %q", r.Config.Args, want)
	}
}
