package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/suite"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestWorkflowBaselineValidates: examples/workflow-baseline.toml checks
// with the flag sets run uses, every scenario planned as suite run plans
// it. It needs the workflow workload; until that is linked into the
// binary it skips (the suite package checks the file's shape meanwhile).
func TestWorkflowBaselineValidates(t *testing.T) {
	if _, err := workload.Lookup("workflow"); err != nil {
		t.Skipf("the workflow workload is not linked: %v", err)
	}
	path := "../../examples/workflow-baseline.toml"
	a := &app{stdout: io.Discard, stderr: io.Discard}
	f, err := a.loadSuite(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	es, tiers, err := f.Select("all")
	if err != nil || len(tiers) != 6 || len(es) != len(f.Entries) {
		t.Fatalf("all tiers: %v %v, %d of %d scenarios", err, tiers, len(es), len(f.Entries))
	}
	for _, e := range es {
		p, err := a.planScenario(e, filepath.Join(t.TempDir(), e.Name))
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if p.settings["clients"] == "" || p.settings["iterations"] == "" && p.settings["duration"] == "" || p.settings["signal-workers"] == "" {
			t.Errorf("%s: settings %v", e.Name, p.settings)
		}
	}
}

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
	if code, _, stderr := runMain("suite", "run", file, "--tier", "smoke", "--out", out); code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep suite.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Scenarios {
		if m := s.Summary; m.Database["xact_commit"] <= 0 || m.Database["blks_hit"] <= 0 || m.Database["tup_inserted"] <= 0 || m.TopWait == "" || m.TopWaitShare <= 0 || m.P90MS <= 0 {
			t.Errorf("%s: summary %+v", s.Name, m)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "suite.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Database", "| Scenario | Throughput/s | Xact Commits |", "| `one` | ", "| `ladder` | "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("suite.md lacks %q:\n%s", want, md)
		}
	}
	smd, err := os.ReadFile(filepath.Join(out, "ladder", "study.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## summary (all transactions)", "## database", "| clients=2 ", "p90 (ms)", "max (ms)"} {
		if !strings.Contains(string(smd), want) {
			t.Errorf("study.md lacks %q:\n%s", want, smd)
		}
	}
}
