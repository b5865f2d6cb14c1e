package studies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestStudyVariesIsolation: a study over --vary
// isolation=read-committed,serializable on PostgreSQL (the package's
// shared cluster) runs each cell at its own level: study.md names each
// cell's level, and each cell's result says it ran at it (cells that
// shared one database would run at one level).
func TestStudyVariesIsolation(t *testing.T) {
	db := testutil.SharedPostgres(t)
	out := filepath.Join(t.TempDir(), "st")
	args := append([]string{"study", "train-events", "--db", db, "--vary", "isolation=serializable,repeatable-read",
		"--iterations", "6", "--clients", "2", "--settle", "0s", "--out", out}, clitest.Quick...)
	clitest.MustRun(t, args...)
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	for i, level := range []string{"serializable", "repeatable-read"} {
		if !strings.Contains(string(md), "isolation="+level) {
			t.Errorf("study.md does not name the cell isolation=%s:\n%s", level, md)
		}
		files, _ := filepath.Glob(filepath.Join(out, "cell0"+string(rune('1'+i))+"-rep*.json"))
		if len(files) != 1 {
			t.Fatalf("cell %d: result files %v", i+1, files)
		}
		r, err := result.Load(files[0])
		if err != nil || r.Config.Isolation != level || r.Config.IsolationDefault {
			t.Errorf("cell %d (isolation=%s): %v, its result says isolation %q (default %v)", i+1, level, err, r.Config.Isolation, r.Config.IsolationDefault)
		}
	}
}
