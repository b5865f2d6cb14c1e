package study_test

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// TestServerGaps: per cell and op, the medians of the client's mean and
// the server's time across repetitions and their difference; a cell
// without runs is skipped, ops without server time in every run are left
// out.
func TestServerGaps(t *testing.T) {
	run := func(mean, server float64) *result.Result {
		r := &result.Result{}
		r.Ops = []result.Op{{Name: "wr.sql"}, {Name: "rd.sql"}}
		r.Ops[0].Mean, r.Ops[0].ServerMS = mean, server
		r.Ops[1].Mean, r.Ops[1].ServerMS = 1, 0 // no server time
		return r
	}
	s := &study.Summary{Cells: []study.CellSummary{{Label: "clients=1"}, {Label: "clients=2"}, {Label: "clients=4"}}}
	results := [][]*result.Result{
		{run(2, 0.5), run(4, 1.5), run(3, 1)},
		nil, // clients=2's runs could not be read
		{run(10, 4)},
	}
	gaps := study.ServerGaps(s, results)
	want := []study.ServerGap{
		{Cell: "clients=1", Op: "wr.sql", ClientMS: 3, ServerMS: 1, GapMS: 2},
		{Cell: "clients=4", Op: "wr.sql", ClientMS: 10, ServerMS: 4, GapMS: 6},
	}
	if len(gaps) != len(want) {
		t.Fatalf("gaps %+v, want %+v", gaps, want)
	}
	for i := range want {
		if gaps[i] != want[i] {
			t.Errorf("gap %d: %+v, want %+v", i, gaps[i], want[i])
		}
	}
	var md strings.Builder
	report.StudyMarkdown(&md, s, results)
	for _, line := range []string{
		"## client vs server",
		"| clients=1 | wr.sql |             3.00 |        1.00 |     2.00 |          33% |",
		"| clients=4 | wr.sql |            10.00 |        4.00 |     6.00 |          40% |",
	} {
		if !strings.Contains(md.String(), line) {
			t.Errorf("study.md lacks %q:\n%s", line, md.String())
		}
	}
	// nothing timed by the server: no table
	md.Reset()
	report.StudyMarkdown(&md, s, [][]*result.Result{{run(1, 0)}})
	if strings.Contains(md.String(), "client vs server") {
		t.Errorf("a table without server times:\n%s", md.String())
	}
}
