package suite

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/report/texttable"
)

// Interrupted is a Scenario's Error when Ctrl-C stopped it.
const Interrupted = "interrupted"

// WriteMarkdown renders r as suite.md: what ran where, the scenario
// summary table, the phase and database tables (see writeTables), the
// settings every scenario shared, and each scenario's own settings with
// links to its files.
func WriteMarkdown(w io.Writer, r *Report) {
	fmt.Fprintf(w, "# Suite %s, %s\n\n", r.Name, r.tierTitle())
	fmt.Fprintf(w, "- suite file: `%s`\n", r.File)
	fmt.Fprintf(w, "- txnbench: %s (%s)\n", r.Tool.Version, r.Tool.Go)
	if servers := serverLines(r); len(servers) > 0 {
		fmt.Fprintf(w, "- server: %s\n", strings.Join(servers, "; "))
	}
	if m := r.Machine; m.OS != "" {
		fmt.Fprintf(w, "- machine: %s, %s/%s, %d CPUs\n", m.Hostname, m.OS, m.Arch, m.CPUs)
	}
	fmt.Fprintf(w, "- started %s, ended %s (%s)\n", r.Started.Format(time.RFC3339), r.Ended.Format(time.RFC3339), r.Ended.Sub(r.Started).Round(time.Second))
	fmt.Fprintf(w, "- outcome: %s\n", outcome(r))
	if len(r.Args) > 0 {
		fmt.Fprintf(w, "- command: `%s`\n", strings.Join(r.Args, " "))
	}

	WriteTables(w, r)

	held := heldConstant(r.Scenarios)
	fmt.Fprintf(w, "\n## Held constant\n\n")
	if len(held) == 0 {
		fmt.Fprintln(w, "No setting had the same value in every scenario.")
	} else {
		fmt.Fprintln(w, "Every scenario ran with these settings; keep them when comparing against another run of this suite:")
		fmt.Fprintln(w)
		for _, k := range slices.Sorted(maps.Keys(held)) {
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
			fmt.Fprintf(w, "- error: %s\n", oneLine(s.Error))
		}
		var own []string
		for _, k := range slices.Sorted(maps.Keys(s.Settings)) {
			if _, shared := held[k]; !shared {
				own = append(own, fmt.Sprintf("`%s` = `%s`", k, s.Settings[k]))
			}
		}
		if len(own) > 0 {
			fmt.Fprintf(w, "- settings: %s\n", strings.Join(own, ", "))
		}
	}
}

// WriteTables writes suite.md's tables: the scenario summary, then the
// phase and database tables (see writeTables). suite run prints them when
// it ends.
func WriteTables(w io.Writer, r *Report) {
	fmt.Fprintf(w, "\n## Scenario summary\n\n")
	fmt.Fprintln(w, "| Scenario | Tier | Workload | Ops | Txns | Conc | Duration s | Throughput/s | Avg ms | P90 ms | P95 ms | P99 ms | Max ms | Failures | Invariants |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	units := false
	studies := false
	for _, s := range r.Scenarios {
		name := "`" + s.Name + "`"
		if link := s.link(); link != "" {
			name = "[`" + s.Name + "`](" + link + ")"
		}
		if s.Kind == KindStudy {
			name += " (study)"
			studies = true
		}
		failed := "FAILED: " + cell(s.Error)
		if s.Error == Interrupted {
			failed = "INTERRUPTED"
		}
		if s.Error != "" && s.Summary.Ops == 0 {
			fmt.Fprintf(w, "| %s | %s | %s | | | | | | | | | | | | %s |\n", name, s.tier(), s.Workload, failed)
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
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			name, s.tier(), s.Workload, ops, texttable.Count(m.txns()), m.Clients, texttable.Fixed(m.DurationS, 2), texttable.Fixed(m.rate(), 2),
			texttable.MS(m.MeanMS), texttable.MS(m.P90MS), texttable.MS(m.P95MS), texttable.MS(m.P99MS), texttable.MS(m.MaxMS), texttable.Count(m.Failures), inv)
	}
	fmt.Fprintln(w, "\nOps are committed transactions in the measured window (Txns); latencies are per transaction, all transaction types merged; failures are transactions that failed after their retries.")
	if units {
		fmt.Fprintln(w, "Where ops name a unit (workflows), the workload counts its cycles: ops, throughput, latencies and failures are those cycles' (one workflow from its start to its completion), and Txns its transactions.")
	}
	if studies {
		fmt.Fprintln(w, "For a study, ops and duration are summed over its cells (each the median of its repetitions), throughput is their ratio, latencies are those of its slowest cell (highest p95), concurrency the most clients of any cell, failures summed over every run; its study.md compares the cells.")
	}

	writeTables(w, r)
}

func (s Scenario) link() string {
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
func heldConstant(ss []Scenario) map[string]string {
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
func serverLines(r *Report) []string {
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

func outcome(r *Report) string {
	failed, violated, unchecked, stopped := 0, 0, 0, 0
	for _, s := range r.Scenarios {
		if s.Error == Interrupted {
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

// cell makes text safe inside a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
