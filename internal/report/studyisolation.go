package report

import (
	"slices"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/study"
)

// isolationTables is what each level cost and let through, the cells side
// by side, when the study varies isolation or its workload checks a
// history: throughput, retries, the errors by class (serialization
// failures, deadlocks), the anomalies found and the invariants.
func isolationTables(s *study.Summary) []studyTable {
	shown := slices.ContainsFunc(s.Vary, func(v study.Vary) bool { return v.Key == "isolation" }) ||
		slices.ContainsFunc(s.Cells, func(c study.CellSummary) bool { return c.Anomalies != nil })
	if !shown {
		return nil
	}
	rows := [][]string{{"cell", "txn/s", "retries", "errors", "errors by class", "anomalies", "invariants"}}
	for _, c := range s.Cells {
		anomalies := "-"
		if a := c.Anomalies; a != nil {
			anomalies = a.Summary()
			if v := a.Violations(); v > 0 {
				anomalies += " (VIOLATES " + a.Promise + ")"
			}
		}
		rows = append(rows, []string{cellName(c), f1(c.TxnPerS), texttable.Count(c.Retries), texttable.Count(c.Txn.Errors), errorClasses(c.Txn),
			anomalies, c.Invariants().Status()})
	}
	return []studyTable{{Title: "isolation: cost and check", Rows: rows, Left: []int{0, 4, 5, 6},
		After: "retries and errors are the transactions' in the measured window (medians); errors failed after their retries; anomalies are what the isolation checker found in the history (list-append, rw-register: summed over repetitions), `-` for a workload that records none, whose check is its invariants."}}
}
