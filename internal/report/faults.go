package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
)

// Faults writes the run's faults under the per-op table: when each came,
// what it hit, and what followed it (docs/faults.md explains each figure),
// then the notes on them.
func Faults(w io.Writer, r *result.Result) {
	t := faultTable(r)
	if len(t.Rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nfaults")
	texttable.Write(w, texttable.Plain, append([][]string{t.Columns}, t.Rows...), 1, 2, 6)
	if t.Note != "" {
		fmt.Fprintln(w, t.Note)
	}
}

// faultTable is the faults as a table, for the terminal and the page;
// its Note has a line per fault that needs one.
func faultTable(r *result.Result) table {
	t := table{Title: "faults", Columns: []string{"at (s)", "fault", "hit", "lasted (s)", "first ok after (s)", "90% throughput after (s)",
		"errors in the outage", "reconnects", "unknown commits"},
		Left: map[int]bool{1: true, 2: true, 6: true}, Wrap: map[int]bool{6: true}}
	var notes []string
	for _, f := range r.Faults {
		name := faultName(f)
		row := []string{fixed(f.AtS, 1), name, f.Target, fixed(f.LastedS, 1), "-", "-", "-", "-", "-"}
		note := []string{f.Note}
		if rc := f.Recovery; rc != nil {
			row[4] = optSeconds(rc.FirstOKS)
			if rc.BaselinePerS > 0 {
				row[5] = optSeconds(rc.ThroughputS)
			}
			row[6] = fmt.Sprintf("%s in %s s", errorList(rc.Errors), fixed(rc.OutageS, 1))
			if rc.Reconnects != nil {
				row[7] = thousands(*rc.Reconnects)
			}
			if rc.UnknownCommits != nil {
				row[8] = thousands(*rc.UnknownCommits)
			}
			note = append(note, rc.Note)
		}
		if n := strings.Trim(strings.Join(note, "; "), "; "); n != "" {
			notes = append(notes, fmt.Sprintf("fault at %s s (%s): %s", fixed(f.AtS, 1), name, n))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = strings.Join(notes, "\n")
	return t
}

// optSeconds is a recovery time, "never" when it did not happen.
func optSeconds(v *float64) string {
	if v == nil {
		return "never"
	}
	return fixed(*v, 2)
}

// errorList is errors by class, e.g. "33 (admin_shutdown 12, connect_refused 21)".
func errorList(m map[string]int64) string {
	var n int64
	var parts []string
	for _, c := range sortedKeys(m) {
		n += m[c]
		parts = append(parts, c+" "+thousands(m[c]))
	}
	if n == 0 {
		return "none"
	}
	return thousands(n) + " (" + strings.Join(parts, ", ") + ")"
}

// mark is a vertical line on every chart over time: a fault.
type mark struct {
	X     float64 `json:"x"`
	Label string  `json:"label"` // the fault, as --fault gives it
}

// faultMarks are the run's faults as marks on its charts.
func faultMarks(r *result.Result) []mark {
	var ms []mark
	for _, f := range r.Faults {
		ms = append(ms, mark{X: round3(f.AtS), Label: faultName(f)})
	}
	return ms
}

// faultName is a fault as --fault names it, e.g. kill-server:2s.
func faultName(f result.Fault) string {
	name := f.Kind
	if f.Arg != "" {
		name += ":" + f.Arg
	}
	if !f.Injected {
		name += " (found)"
	}
	return name
}
