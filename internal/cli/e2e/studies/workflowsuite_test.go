package studies

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestSuiteTablesOnPostgres: a suite run on temp-postgres writes the
// baseline's tables: suite.md's database table (commits, buffer hits,
// tuples, top wait) per scenario, suite.json's summary with them, and the
// study scenario's study.md its per-cell summary and database tables.
func TestSuiteTablesOnPostgres(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "pg.toml")
	text := `name = "pg"
[defaults]
db = "temp-postgres"
iterations = 40
rows = 100
delay = "0s"
think-min = "1ms"
think-max = "2ms"
[[scenario]]
name = "one"
workload = "train-events"
tiers = ["smoke"]
[scenario.flags]
clients = 2
[[scenario]]
name = "ladder"
workload = "train-events"
tiers = ["smoke"]
[scenario.flags]
settle = "0s"
[scenario.vary]
clients = [1, 2]
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	clitest.MustRun(t, "suite", "run", file, "--tier", "smoke", "--out", out)
	rep := readSuite(t, out)
	for _, s := range rep.Scenarios {
		if m := s.Summary; m.Database["xact_commit"] <= 0 || m.Database["blks_hit"] <= 0 || m.Database["tup_inserted"] <= 0 || m.TopWait == "" || m.TopWaitShare <= 0 || m.P90MS <= 0 {
			t.Errorf("%s: summary %+v", s.Name, m)
		}
	}
	md := clitest.Read(t, filepath.Join(out, "suite.md"))
	plain.Contains(t, "suite.md", plain.Squeeze(string(md)), "## Database", "| Scenario | Throughput/s | Xact Commits |", "| `one` | ", "| `ladder` | ")
	smd := clitest.Read(t, filepath.Join(out, "ladder", "study.md"))
	plain.Contains(t, "study.md", string(smd), "## summary (all transactions)", "## database", "| clients=2 ", "p90 (ms)", "max (ms)")
}
