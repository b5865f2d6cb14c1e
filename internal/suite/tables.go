package suite

import (
	"fmt"
	"io"
	"strings"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
)

// tierTitle is "tier smoke" or "tiers smoke, nightly".
func (r *Report) tierTitle() string {
	tiers := strings.Split(r.Tier, ",")
	if len(tiers) == 1 {
		return "tier " + r.Tier
	}
	return "tiers " + strings.Join(tiers, ", ")
}

// tier is the tier the scenario ran for (all its tiers for a report
// written before scenarios recorded it).
func (s Scenario) tier() string {
	if s.Tier != "" {
		return s.Tier
	}
	return strings.Join(s.Tiers, ", ")
}

// deltaHeads are the database table's headings of result.DeltaCounters.
var deltaHeads = map[string]string{
	"xact_commit": "Xact Commits", "xact_rollback": "Xact Rollbacks", "blks_hit": "Buffer Hits", "blks_read": "Buffer Reads",
	"tup_inserted": "Tuples Inserted", "tup_updated": "Tuples Updated", "tup_deleted": "Tuples Deleted",
}

// writeTables writes the phase table, when a scenario has phases, and
// the database table (counters and top wait), when a scenario has
// telemetry.
func writeTables(w io.Writer, r *Report) {
	var phases, db []Scenario
	for _, s := range r.Scenarios {
		if len(s.Summary.Phases) > 0 {
			phases = append(phases, s)
		}
		if len(s.Summary.Database) > 0 || s.Summary.TopWait != "" {
			db = append(db, s)
		}
	}
	if len(phases) > 0 {
		fmt.Fprintf(w, "\n## Phases\n\n")
		fmt.Fprintln(w, "| Scenario | Phase | Count | Avg ms | P90 ms | P95 ms | P99 ms | Max ms |")
		fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
		for _, s := range phases {
			for _, p := range s.Summary.Phases {
				fmt.Fprintf(w, "| `%s` | `%s` | %s | %s | %s | %s | %s | %s |\n", s.Name, p.Name, texttable.Count(p.Count),
					texttable.MS(p.MeanMS), texttable.MS(p.P90MS), texttable.MS(p.P95MS), texttable.MS(p.P99MS), texttable.MS(p.MaxMS))
			}
		}
		fmt.Fprintln(w, "\nPhases are timed parts of a workload's ops, measured in the same window (one may span sessions, from a signal's publication to its workflow's completion, say); count is how many completed in the window; for a study, its slowest cell's medians.")
	}
	if len(db) > 0 {
		fmt.Fprintf(w, "\n## Database\n\n")
		head, align := []string{"Scenario", "Throughput/s"}, []string{"---", "---:"}
		for _, k := range result.DeltaCounters {
			head, align = append(head, deltaHeads[k]), append(align, "---:")
		}
		head, align = append(head, "Top Wait"), append(align, "---")
		fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(align, " | "))
		for _, s := range db {
			row := []string{"`" + s.Name + "`", texttable.Fixed(s.Summary.TxnPerS, 2)}
			for _, k := range result.DeltaCounters {
				v, ok := s.Summary.Database[k]
				if c := s.Summary.Commits; k == "xact_commit" && ok && c != nil {
					row = append(row, c.Text())
					continue
				}
				row = append(row, countCell(v, ok))
			}
			row = append(row, topWaitCell(s.Summary.TopWait, s.Summary.TopWaitShare))
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
		fmt.Fprintln(w, "\nCounters are the run database's change over the measured window (pg_stat_database; for a study summed over its cells, each the median of its repetitions), until the clients are gone: commits add up as the run's report adds them, with the clients' transactions they cover (for a study, each cell's repetition with the median commits). The top wait is the wait event the run's sessions were seen in most often while in a transaction (running a statement, or idle in it waiting for the client), with its share of the samples; see docs/telemetry.md.")
	}
}

func countCell(v int64, ok bool) string {
	if !ok {
		return ""
	}
	return texttable.Count(v)
}

// topWaitCell is a top wait as a table cell: "`Client:ClientRead` (62%)",
// "" when there is none.
func topWaitCell(name string, share float64) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("`%s` (%.0f%%)", name, 100*share)
}
