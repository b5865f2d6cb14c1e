package report

import (
	"fmt"
	"io"

	"github.com/txnbench/txnbench/internal/result"
)

// Anomalies prints the isolation checker's verdict: one example a class
// found (its transactions, keys, values and cycle), then the line
// "anomalies: none in N transactions (...)" or "anomalies: G2-item 12,
// lost-update 3 in N transactions (allowed by ...)". Nothing when the run
// recorded no history.
func Anomalies(w io.Writer, a *result.Anomalies) {
	if a == nil {
		return
	}
	for _, f := range a.Found {
		verdict := "allowed"
		if f.Violation {
			verdict = "VIOLATION"
		}
		fmt.Fprintf(w, "  %-9s %s %d: %s\n", verdict, f.Class, f.Count, firstLine(f.Example, 400))
	}
	for _, saved := range []struct{ what, path string }{{"history", a.History}, {"history for Elle (EDN)", a.EDN}} {
		if saved.path != "" {
			fmt.Fprintf(w, "  %s saved to %s\n", saved.what, saved.path)
		}
	}
	fmt.Fprintln(w, "anomalies: "+a.Verdict())
}

// anomalyTable is the HTML report's table of the classes found, with
// their examples.
func anomalyTable(r *result.Result) []table {
	if r.Invariants == nil || r.Invariants.Anomalies == nil || len(r.Invariants.Anomalies.Found) == 0 {
		return nil
	}
	a := r.Invariants.Anomalies
	t := table{Title: "anomalies", Columns: []string{"class", "count", "verdict", "example"}, Left: map[int]bool{2: true, 3: true}, Wrap: map[int]bool{3: true}}
	for _, f := range a.Found {
		verdict := "allowed by " + a.Promise
		if f.Violation {
			verdict = "VIOLATES " + a.Promise
		}
		t.Rows = append(t.Rows, []string{f.Class, thousands(int64(f.Count)), verdict, f.Example})
	}
	t.Note = "anomalies: " + a.Verdict()
	return []table{t}
}
