package study

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
)

// deltaHeads are the database table's headings of result.DeltaCounters.
var deltaHeads = map[string]string{
	"xact_commit": "commits", "xact_rollback": "rollbacks", "blks_hit": "blks hit", "blks_read": "blks read",
	"tup_inserted": "tup inserted", "tup_updated": "tup updated", "tup_deleted": "tup deleted",
}

// cellTables are the per-cell tables of a published baseline: the
// summary of all transactions, the phases (when the workload has any) and
// the database counters with the top wait (when telemetry ran). A
// study.json from before these columns has none of them to show.
func cellTables(s *Summary) []Table {
	var out []Table
	var txns, phases, db bool
	for _, c := range s.Cells {
		txns = txns || c.Txn.Count > 0 || c.Txn.Errors > 0
		db = db || len(c.Database) > 0 || c.TopWait != ""
		for _, o := range c.Ops {
			phases = phases || o.Kind == result.KindPhase
		}
	}
	if unit := cycleUnit(s); unit != "" {
		out = append(out, unitSummary(s, unit))
	} else if txns {
		rows := [][]string{{"cell", "clients", "txns", "duration (s)", "txn/s", "mean (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "errors", "success", "errors by class"}}
		for _, c := range s.Cells {
			t := c.Txn
			row := []string{c.Label, strconv.Itoa(c.Clients), num(t.Count), texttable.Fixed(c.DurationS, 2), f1(c.TxnPerS)}
			row = append(append(row, t.lats()...), num(t.Errors), t.SuccessPct(), t.classes())
			rows = append(rows, row)
		}
		out = append(out, Table{Title: "summary (all transactions)", Rows: rows, Left: []int{0, 12},
			After: "txns are the transactions committed in the measured window, every transaction op merged; errors failed after their retries (medians, by class too); success is txns / (txns + errors)."})
	}
	if phases {
		rows := [][]string{{"cell", "phase", "count", "mean (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)"}}
		for _, c := range s.Cells {
			for _, o := range result.PhaseRows(c.Ops, func(o OpStats) result.Kind { return o.Kind }) {
				rows = append(rows, []string{c.Label, o.Name, num(o.Count), ms(o.Mean), ms(o.P90), ms(o.P95), ms(o.P99), ms(o.Max)})
			}
		}
		out = append(out, Table{Title: "phases", Rows: rows, Left: []int{0, 1}})
	}
	if db {
		head := []string{"cell", "txn/s"}
		for _, k := range result.DeltaCounters {
			head = append(head, deltaHeads[k])
		}
		rows := [][]string{append(head, "top wait")}
		for _, c := range s.Cells {
			row := []string{c.Label, f1(c.TxnPerS)}
			for _, k := range result.DeltaCounters {
				v, ok := c.Database[k]
				switch {
				case !ok:
					row = append(row, "")
				case k == "xact_commit" && c.Commits != nil:
					row = append(row, c.Commits.Text())
				default:
					row = append(row, num(v))
				}
			}
			top := ""
			if c.TopWait != "" {
				top = fmt.Sprintf("%s (%.0f%%)", c.TopWait, 100*c.TopWaitShare)
			}
			rows = append(rows, append(row, top))
		}
		left := []int{0, len(head)}
		if i := slices.Index(result.DeltaCounters, "xact_commit"); i >= 0 {
			left = append(left, 2+i) // commits read as a sum
		}
		out = append(out, Table{Title: "database", Rows: rows, Left: left,
			After: "Counters are the run database's change over the measured window (pg_stat_database), until the clients are gone: commits are those of the repetition with the median commits, with the clients' transactions they cover (those completed in the window, after it, and begun in the warm-up), as the run's report adds them up; the top wait is the wait event the cell's sessions were seen in most while in a transaction, over all its runs, with its share of the samples."})
	}
	return out
}

// cycleUnit is what the cells' cycles are when every cell's workload
// counts them ("workflows"), "" otherwise.
func cycleUnit(s *Summary) string {
	unit := s.Cells[0].Unit
	for _, c := range s.Cells {
		if c.Unit != unit || c.op(result.CycleOp) == nil {
			return ""
		}
	}
	return unit
}

// unitSummary is the per-cell summary of a workload that counts its
// cycles as units (the workflow workload's workflows): their count,
// rate, latencies and errors, with the transactions in their own
// columns, each heading naming what it counts.
func unitSummary(s *Summary, unit string) Table {
	rows := [][]string{{"cell", "clients", unit, "duration (s)", unit + "/s", "mean (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "errors", "success", "txns", "txn/s", "txn errors by class"}}
	for _, c := range s.Cells {
		cy := c.op(result.CycleOp)
		row := []string{c.Label, strconv.Itoa(c.Clients), num(cy.Count), texttable.Fixed(c.DurationS, 2), f1(cy.OpsPerS)}
		row = append(append(row, cy.lats()...), num(cy.Errors), cy.SuccessPct(), num(c.Txn.Count), f1(c.TxnPerS), c.Txn.classes())
		rows = append(rows, row)
	}
	return Table{Title: "summary (" + unit + ")", Rows: rows, Left: []int{0, 14},
		After: fmt.Sprintf("%s are the workload's cycles completed in the measured window, each one of them from its start to its completion: %s/s, the latencies, errors and success (%s / (%s + errors)) are theirs; txns are the transactions committed in the window, every transaction op merged (a cycle runs several), txn/s their rate, and their errors by class (medians).", unit, unit, unit, unit)}
}
