package cli

import (
	"io"
	"path/filepath"
	"testing"

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
