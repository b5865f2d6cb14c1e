package report

import (
	"strings"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// studyTables are study.md's sections (studySections) as the page's
// tables, notes below a table joined to the one above it.
func studyTables(s *study.Summary, all [][]*result.Result) []table {
	var out []table
	for _, t := range studySections(s, all) {
		left := map[int]bool{}
		for _, i := range t.Left {
			left[i] = true
		}
		out = append(out, table{Title: t.Title, Note: strings.TrimSpace(t.Note + " " + t.After), Columns: t.Rows[0], Rows: t.Rows[1:], Left: left})
	}
	return out
}

// vsFirst drops the cells table's "vs first" columns unless the study
// compares with the first cell (--compare first).
func vsFirst(s *study.Summary, t table) table {
	leftCol := map[string]bool{}
	for i, c := range t.Columns {
		leftCol[c] = t.Left[i]
	}
	rows := studyVsFirst(s, append([][]string{t.Columns}, t.Rows...))
	t.Columns, t.Rows, t.Left = rows[0], rows[1:], map[int]bool{}
	for i, c := range t.Columns {
		t.Left[i] = leftCol[c]
	}
	return t
}
