package report

import (
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/suite"
)

// SuiteMarkdown renders a suite report as suite.md: what ran where, the scenario
// summary table, the phase and database tables (see suiteDetailTables), the
// settings every scenario shared, and each scenario's own settings with
// links to its files.
func SuiteMarkdown(w io.Writer, r *suite.Report) {
	fmt.Fprintf(w, "# Suite %s, %s\n\n", r.Name, r.TierTitle())
	fmt.Fprintf(w, "- suite file: `%s`\n", r.File)
	fmt.Fprintf(w, "- txnbench: %s (%s)\n", r.Tool.Version, r.Tool.Go)
	if servers := serverLines(r); len(servers) > 0 {
		fmt.Fprintf(w, "- server: %s\n", strings.Join(servers, "; "))
	}
	if m := r.Machine; m.OS != "" {
		fmt.Fprintf(w, "- machine: %s, %s/%s, %d CPUs\n", m.Hostname, m.OS, m.Arch, m.CPUs)
	}
	fmt.Fprintf(w, "- started %s, ended %s (%s)\n", r.Started.Format(time.RFC3339), r.Ended.Format(time.RFC3339), r.Ended.Sub(r.Started).Round(time.Second))
	fmt.Fprintf(w, "- outcome: %s\n", suiteOutcome(r))
	if len(r.Args) > 0 {
		fmt.Fprintf(w, "- command: `%s`\n", strings.Join(r.Args, " "))
	}

	SuiteTables(w, r)

	held := heldConstant(r.Scenarios)
	fmt.Fprintf(w, "\n## Held constant\n\n")
	if len(held) == 0 {
		fmt.Fprintln(w, "No setting had the same value in every scenario.")
	} else {
		fmt.Fprintln(w, "Every scenario ran with these settings; keep them when comparing against another run of this suite:")
		fmt.Fprintln(w)
		for _, k := range sortedKeys(held) {
			fmt.Fprintf(w, "- `%s` = `%s`\n", k, held[k])
		}
	}

	fmt.Fprintf(w, "\n## Scenarios\n")
	for _, s := range r.Scenarios {
		fmt.Fprintf(w, "\n### %s\n\n", s.Name)
		fmt.Fprintf(w, "- %s of %s, tiers %s", s.Kind, s.Workload, strings.Join(s.Tiers, ", "))
		if s.Server != "" {
			fmt.Fprintf(w, ", on %s", s.Server)
		}
		fmt.Fprintln(w)
		switch {
		case s.Result != "":
			page := strings.TrimSuffix(s.Result, ".json") + ".html"
			fmt.Fprintf(w, "- result: [%s](%s), charts in [%s](%s)\n", s.Result, s.Result, page, page)
		case s.Study != "":
			dir := strings.TrimSuffix(s.Study, "study.json")
			fmt.Fprintf(w, "- study: [%s](%s), [%sstudy.md](%sstudy.md), charts in [%sstudy.html](%sstudy.html), one result per run in [%s](%s)\n", s.Study, s.Study, dir, dir, dir, dir, dir, dir)
		}
		if s.Error != "" {
			fmt.Fprintf(w, "- error: %s\n", strings.Join(strings.Fields(s.Error), " "))
		}
		var own []string
		for _, k := range sortedKeys(s.Settings) {
			if _, shared := held[k]; !shared {
				own = append(own, fmt.Sprintf("`%s` = `%s`", k, s.Settings[k]))
			}
		}
		if len(own) > 0 {
			fmt.Fprintf(w, "- settings: %s\n", strings.Join(own, ", "))
		}
	}
}

// SuiteTables writes suite.md's tables: the scenario summary, then the
// phase and database tables (see suiteDetailTables). suite run prints them when
// it ends.
func SuiteTables(w io.Writer, r *suite.Report) {
	fmt.Fprintf(w, "\n## Scenario summary\n\n")
	rows := [][]string{{"Scenario", "Tier", "Workload", "Ops", "Txns", "Conc", "Duration s", "Throughput/s", "Avg ms", "P90 ms", "P95 ms", "P99 ms", "Max ms", "Failures", "Invariants"}}
	units := false
	studies := false
	for _, s := range r.Scenarios {
		name := "`" + s.Name + "`"
		if link := scenarioLink(s); link != "" {
			name = "[`" + s.Name + "`](" + link + ")"
		}
		if s.Kind == suite.KindStudy {
			name += " (study)"
			studies = true
		}
		failed := "FAILED: " + texttable.Escape(s.Error)
		if s.Error == suite.Interrupted {
			failed = "INTERRUPTED"
		}
		if s.Error != "" && s.Summary.Ops == 0 {
			rows = append(rows, []string{name, scenarioTier(s), s.Workload, "", "", "", "", "", "", "", "", "", "", "", failed})
			continue
		}
		m := s.Summary
		inv := m.Invariants().Status()
		if s.Error != "" {
			inv += "; " + failed
		}
		ops := texttable.Count(m.Ops)
		if m.Unit != "" {
			ops += " " + m.Unit
			units = true
		}
		rows = append(rows, []string{name, scenarioTier(s), s.Workload, ops, texttable.Count(m.TxnCount()), strconv.Itoa(m.Clients), texttable.Fixed(m.DurationS, 2), texttable.Fixed(m.Rate(), 2),
			texttable.MS(m.MeanMS), texttable.MS(m.P90MS), texttable.MS(m.P95MS), texttable.MS(m.P99MS), texttable.MS(m.MaxMS), texttable.Count(m.Failures), inv})
	}
	texttable.Write(w, texttable.Markdown, rows, 0, 1, 2, 14) // ends with a blank line
	fmt.Fprintln(w, "Ops are committed transactions in the measured window (Txns); latencies are per transaction, all transaction types merged; failures are transactions that failed after their retries.")
	if units {
		fmt.Fprintln(w, "Where ops name a unit (workflows), the workload counts its cycles: ops, throughput, latencies and failures are those cycles' (one workflow from its start to its completion), and Txns its transactions.")
	}
	if studies {
		fmt.Fprintln(w, "For a study, ops and duration are summed over its cells (each the median of its repetitions), throughput is their ratio, latencies are those of its slowest cell (highest p95), concurrency the most clients of any cell, failures summed over every run; its study.md compares the cells.")
	}

	suiteDetailTables(w, r)
}

func scenarioLink(s suite.Scenario) string {
	if s.Result != "" {
		return s.Result
	}
	if s.Study != "" {
		return strings.TrimSuffix(s.Study, "study.json") + "study.md"
	}
	return ""
}

// heldConstant is the settings with the same value in every scenario
// (that has settings).
func heldConstant(ss []suite.Scenario) map[string]string {
	var held map[string]string
	for _, s := range ss {
		if len(s.Settings) == 0 {
			continue
		}
		if held == nil {
			held = maps.Clone(s.Settings)
			continue
		}
		for k, v := range held {
			if sv, ok := s.Settings[k]; !ok || sv != v {
				delete(held, k)
			}
		}
	}
	return held
}

// serverLines lists each server with the scenarios that ran on it, when
// they differ; one server alone.
func serverLines(r *suite.Report) []string {
	var order []string
	on := map[string][]string{}
	for _, s := range r.Scenarios {
		if s.Server == "" {
			continue
		}
		if _, ok := on[s.Server]; !ok {
			order = append(order, s.Server)
		}
		on[s.Server] = append(on[s.Server], s.Name)
	}
	if len(order) == 1 {
		return order
	}
	var out []string
	for _, srv := range order {
		out = append(out, fmt.Sprintf("%s (%s)", srv, strings.Join(on[srv], ", ")))
	}
	return out
}

func suiteOutcome(r *suite.Report) string {
	failed, violated, unchecked, stopped := 0, 0, 0, 0
	for _, s := range r.Scenarios {
		if s.Error == suite.Interrupted {
			stopped++
		} else if s.Error != "" {
			failed++
		} else if s.Summary.Invariants().Violated() {
			violated++
		} else if s.Summary.InvariantsNotChecked != "" {
			unchecked++
		}
	}
	out := fmt.Sprintf("%d scenarios", len(r.Scenarios))
	if ok := len(r.Scenarios) - failed - violated - unchecked - stopped; ok == len(r.Scenarios) {
		return out + ", all OK"
	} else {
		out += fmt.Sprintf(", %d OK", ok)
	}
	if failed > 0 {
		out += fmt.Sprintf(", %d failed", failed)
	}
	if violated > 0 {
		out += fmt.Sprintf(", %d with invariants violated", violated)
	}
	if unchecked > 0 {
		out += fmt.Sprintf(", %d with invariants not checked", unchecked)
	}
	if stopped > 0 {
		out += ", interrupted"
	}
	return out
}

// scenarioTier is the tier the scenario ran for (all its tiers for a report
// written before scenarios recorded it).
func scenarioTier(s suite.Scenario) string {
	if s.Tier != "" {
		return s.Tier
	}
	return strings.Join(s.Tiers, ", ")
}

// suiteDeltaHeads are the database table's headings of result.DeltaCounters.
var suiteDeltaHeads = map[string]string{
	"xact_commit": "Xact Commits", "xact_rollback": "Xact Rollbacks", "blks_hit": "Buffer Hits", "blks_read": "Buffer Reads",
	"tup_inserted": "Tuples Inserted", "tup_updated": "Tuples Updated", "tup_deleted": "Tuples Deleted",
}

// suiteDetailTables writes the phase table, when a scenario has phases, and
// the database table (counters and top wait), when a scenario has
// telemetry.
func suiteDetailTables(w io.Writer, r *suite.Report) {
	var phases, db []suite.Scenario
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
		rows := [][]string{{"Scenario", "Phase", "Count", "Avg ms", "P90 ms", "P95 ms", "P99 ms", "Max ms"}}
		for _, s := range phases {
			for _, p := range s.Summary.Phases {
				rows = append(rows, []string{"`" + s.Name + "`", "`" + p.Name + "`", texttable.Count(p.Count),
					texttable.MS(p.MeanMS), texttable.MS(p.P90MS), texttable.MS(p.P95MS), texttable.MS(p.P99MS), texttable.MS(p.MaxMS)})
			}
		}
		texttable.Write(w, texttable.Markdown, rows, 0, 1)
		fmt.Fprintln(w, "Phases are timed parts of a workload's ops, measured in the same window (one may span sessions, from a signal's publication to its workflow's completion, say); count is how many completed in the window; for a study, its slowest cell's medians.")
	}
	if len(db) > 0 {
		fmt.Fprintf(w, "\n## Database\n\n")
		head := []string{"Scenario", "Throughput/s"}
		for _, k := range result.DeltaCounters {
			head = append(head, suiteDeltaHeads[k])
		}
		rows := [][]string{append(head, "Top Wait")}
		for _, s := range db {
			row := []string{"`" + s.Name + "`", texttable.Fixed(s.Summary.TxnPerS, 2)}
			for _, k := range result.DeltaCounters {
				v, ok := s.Summary.Database[k]
				if c := s.Summary.Commits; k == "xact_commit" && ok && c != nil {
					row = append(row, CommitsText(*c))
					continue
				}
				row = append(row, suiteCountCell(v, ok))
			}
			rows = append(rows, append(row, topWaitCell(s.Summary.TopWait, s.Summary.TopWaitShare)))
		}
		texttable.Write(w, texttable.Markdown, rows, 0, len(rows[0])-1)
		fmt.Fprintln(w, "Counters are the run database's change over the measured window (pg_stat_database; for a study summed over its cells, each the median of its repetitions), until the clients are gone: commits add up as the run's report adds them, with the clients' transactions they cover (for a study, each cell's repetition with the median commits). The top wait is the wait event the run's sessions were seen in most often while in a transaction (running a statement, or idle in it waiting for the client), with its share of the samples; see docs/telemetry.md.")
	}
}

func suiteCountCell(v int64, ok bool) string {
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
