package suite_test

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/suite"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestWriteMarkdownGolden: report writes a suite's suite.md as it always
// has (the golden file is the suite package's, where the report is
// built).
func TestWriteMarkdownGolden(t *testing.T) {
	var b strings.Builder
	report.SuiteMarkdown(&b, suite.SampleReport())
	plain.Golden(t, "suite.md.golden", b.String())
}

// TestMarkdownInvariantsNotChecked: a scenario whose check verified
// nothing (custom scripts) is neither OK nor violated in suite.md.
func TestMarkdownInvariantsNotChecked(t *testing.T) {
	r := suite.SampleReport()
	r.Scenarios = r.Scenarios[:1]
	r.Scenarios[0].Summary.InvariantsOK, r.Scenarios[0].Summary.InvariantsNotChecked = false, "custom scripts"
	var b strings.Builder
	report.SuiteMarkdown(&b, r)
	md := b.String()
	plain.Contains(t, "suite.md", md, "| not checked (custom scripts) |", "1 with invariants not checked")
	if strings.Contains(md, "VIOLATED") || strings.Contains(md, "all OK") {
		t.Errorf("suite.md calls verified-nothing OK or violated:\n%s", md)
	}
}

// TestMarkdownSeveralTiers: the title names every tier run.
func TestMarkdownSeveralTiers(t *testing.T) {
	r := suite.SampleReport()
	r.Tier = "smoke,nightly"
	var b strings.Builder
	report.SuiteMarkdown(&b, r)
	if !strings.HasPrefix(b.String(), "# Suite baseline, tiers smoke, nightly\n") {
		t.Errorf("title: %s", strings.SplitN(b.String(), "\n", 2)[0])
	}
}

// TestWorkflowTablesCountCycles: a workflow scenario's row counts its
// workflows, its transactions in their own column.
func TestWorkflowTablesCountCycles(t *testing.T) {
	var b strings.Builder
	report.SuiteTables(&b, &suite.Report{Scenarios: []suite.Scenario{{Name: "c1", Workload: "workflow", Tiers: []string{"capacity"}, Summary: suite.WorkflowSummary()}}})
	plain.Contains(t, "suite.md", plain.Squeeze(b.String()), "| `c1` | capacity | workflow | 100 workflows | 200 | 4 | 10.00 | 10.00 | 100.00 |")
}

// TestSuiteCommitsAddUp: the database table's commits add up as the
// run's report adds them (the server's counters run until the clients
// are gone, so they hold the transactions completed after the window),
// for a run and for a study summed over its cells, each cell's
// repetition with the median commits; before, the table printed the
// commits alone beside a throughput that left those out.
func TestSuiteCommitsAddUp(t *testing.T) {
	run := func(commits, after int64) *result.Result {
		r := suite.Phased(5, 300, commits, nil)
		r.Ops[0].AfterWindow = after
		return r
	}
	rep := suite.SampleReport()
	rep.Scenarios = rep.Scenarios[:1]
	rep.Scenarios[0].Summary = suite.RunSummary(run(5, 3))
	study := rep.Scenarios[0]
	study.Name = "ladder"
	study.Summary = suite.StudySummary([][]*result.Result{{run(6, 4), run(4, 2), run(9, 7)}, {run(12, 10)}})
	rep.Scenarios = append(rep.Scenarios, study)
	var b strings.Builder
	report.SuiteMarkdown(&b, rep)
	plain.Contains(t, "suite.md", plain.Squeeze(b.String()),
		" | 5 = 2 in the window + 3 completed after it | ",   // the run: 2 start ops in the window
		" | 18 = 4 in the window + 14 completed after it | ", // the study: 6 = 2 + 4, and 12 = 2 + 10
	)
}
