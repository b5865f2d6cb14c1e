package diff_test

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/diff"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestGolden: report's renderers write a diff report as they always have
// (the golden files are the diff package's, where the report is built).
func TestGolden(t *testing.T) {
	rep := diff.GoldenReport(t)
	var sb strings.Builder
	report.DiffText(&sb, rep)
	plain.Golden(t, "diff.golden", sb.String())
	sb.Reset()
	report.DiffMarkdown(&sb, rep)
	plain.Golden(t, "diff.md.golden", sb.String())
}

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		rep  diff.Report
		want string
	}{
		{diff.Report{Kind: diff.KindStudy, Regressions: 4, Regressed: 1, Compared: 3}, "4 regressions in 1 of 3 cells (0 better)"},
		{diff.Report{Kind: diff.KindSuite, Compared: 1, Improved: 2}, "no regressions in 1 scenario (2 better)"},
		{diff.Report{Kind: diff.KindResult, Regressions: 1, Compared: 1}, "1 regression (0 better)"},
	} {
		if got := report.DiffSummary(&c.rep); got != c.want {
			t.Errorf("%+v: %q, want %q", c.rep, got, c.want)
		}
	}
}
