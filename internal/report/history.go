package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/txnbench/txnbench/internal/changepoint"
	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/stats"
)

// HistorySummary is the one line that says what a history found: "2
// changes in 1 of 48 metrics (...)" or "no changes in 48 metrics (...)".
func HistorySummary(h *changepoint.History) string {
	changes, series := h.Changed()
	how := fmt.Sprintf("p < %g, medians %g%% apart or more", h.P, h.MinChangePct)
	if changes == 0 {
		return fmt.Sprintf("no changes in %d metrics over %d %s (%s)", len(h.Series), len(h.Points), kinds(h), how)
	}
	return fmt.Sprintf("%d change%s in %d of %d metrics over %d %s (%s)", changes, plural(changes), series, len(h.Series), len(h.Points), kinds(h), how)
}

// kinds is the plural of the history's kind: results, studies, suites.
func kinds(h *changepoint.History) string {
	if h.Kind == "study" {
		return "studies"
	}
	return h.Kind + "s"
}

// historyRows are the changes as table rows: metric, where (#N counts
// points from 1, with the point's label), before, after, change, p,
// verdict.
func historyRows(h *changepoint.History) [][]string {
	rows := [][]string{{"metric", "where", "before", "after", "change", "p", "verdict"}}
	for _, s := range h.Series {
		for _, c := range s.Changes {
			verdict := "better"
			if s.Worse(c) {
				verdict = "WORSE"
			}
			rows = append(rows, []string{s.Name, fmt.Sprintf("#%d %s", c.Index+1, h.Points[c.Index].Label),
				diffValue(s.Unit, c.Before), diffValue(s.Unit, c.After), fmt.Sprintf("%+.1f%%", 100*(c.Ratio()-1)),
				fmt.Sprintf("%.3f", c.P), verdict})
		}
	}
	return rows
}

// historyRange says which points the history spans.
func historyRange(h *changepoint.History) string {
	at := func(p changepoint.Point) string {
		if p.Time.IsZero() {
			return p.Label
		}
		return fmt.Sprintf("%s (%s)", p.Label, p.Time.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return fmt.Sprintf("%d %s, #1 %s to #%d %s", len(h.Points), kinds(h), at(h.Points[0]), len(h.Points), at(h.Points[len(h.Points)-1]))
}

// HistoryText renders a history's changes as text: what it spans, a table
// of the changes, the metrics left out, the summary line last.
func HistoryText(w io.Writer, h *changepoint.History) {
	fmt.Fprintf(w, "txnbench history: %s\n", historyRange(h))
	if rows := historyRows(h); len(rows) > 1 {
		fmt.Fprintln(w)
		texttable.Write(w, texttable.Plain, rows, 0, len(rows[0])-1)
	}
	if len(h.Skipped) > 0 {
		fmt.Fprintf(w, "note: not in every point with enough samples (not analysed): %s\n", strings.Join(h.Skipped, ", "))
	}
	fmt.Fprintf(w, "\n%s\n", HistorySummary(h))
}

// HistoryMarkdown renders a history's changes as Markdown, for a CI job's
// summary: the summary line as a heading, then the table.
func HistoryMarkdown(w io.Writer, h *changepoint.History) {
	fmt.Fprintf(w, "### txnbench history: %s\n\n%s.\n", texttable.Escape(HistorySummary(h)), texttable.Escape(historyRange(h)))
	if rows := historyRows(h); len(rows) > 1 {
		for _, r := range rows[1:] {
			for i := range r {
				r[i] = texttable.Escape(r[i])
			}
			if r[6] == "WORSE" {
				r[6] = "**WORSE**"
			}
		}
		fmt.Fprintln(w)
		texttable.Write(w, texttable.Markdown, rows, 0, 1, 6)
	}
	if len(h.Skipped) > 0 {
		fmt.Fprintf(w, "\n- not in every point with enough samples (not analysed): %s\n", texttable.Escape(strings.Join(h.Skipped, ", ")))
	}
}

// HistoryHTML writes a self-contained page (no script, no network): the
// summary, the table of changes and a chart of each metric that changed
// (of each throughput when none did), its points, the medians of its
// segments and its changes marked.
func HistoryHTML(w io.Writer, h *changepoint.History) error {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>txnbench history</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}
td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child,td:nth-child(2){text-align:left}
.worse{color:#b00;font-weight:bold}svg{display:block;margin:0 0 1.5em}h2{font-size:15px;margin:1.2em 0 .3em}</style></head><body>
<h1>txnbench history</h1><p>%s.</p><p><b>%s</b></p>
`, e(historyRange(h)), e(HistorySummary(h)))
	if rows := historyRows(h); len(rows) > 1 {
		b.WriteString("<table><tr>")
		for _, c := range rows[0] {
			fmt.Fprintf(&b, "<th>%s</th>", e(c))
		}
		b.WriteString("</tr>\n")
		for _, r := range rows[1:] {
			cls := ""
			if r[6] == "WORSE" {
				cls = ` class="worse"`
			}
			fmt.Fprintf(&b, "<tr%s>", cls)
			for _, c := range r {
				fmt.Fprintf(&b, "<td>%s</td>", e(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	changes, _ := h.Changed()
	for _, s := range h.Series {
		if len(s.Changes) > 0 || changes == 0 && strings.HasSuffix(s.Name, "txn/s") {
			fmt.Fprintf(&b, "<h2>%s</h2>\n", e(s.Name))
			historyChart(&b, h, s)
		}
	}
	if len(h.Skipped) > 0 {
		fmt.Fprintf(&b, "<p>Not in every point with enough samples (not analysed): %s</p>\n", e(strings.Join(h.Skipped, ", ")))
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// historyChart draws one series as an SVG: its points (each with its
// label and value as a tooltip), each segment's median as a dashed line
// and each change as a red vertical line.
func historyChart(b *strings.Builder, h *changepoint.History, s changepoint.Series) {
	const wd, ht, pad = 1000.0, 220.0, 40.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range s.Values {
		lo, hi = min(lo, v), max(hi, v)
	}
	lo, hi = min(lo, 0), hi*1.1
	if hi <= lo {
		hi = lo + 1
	}
	n := len(s.Values)
	x := func(i float64) float64 { return pad + (wd-2*pad)*i/float64(max(n-1, 1)) }
	y := func(v float64) float64 { return ht - pad/2 - (ht-pad)*(v-lo)/(hi-lo) }
	fmt.Fprintf(b, `<svg width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`+"\n", wd, ht, wd, ht, html.EscapeString(s.Name))
	fmt.Fprintf(b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#999"/><text x="2" y="%.1f" font-size="11">%s</text><text x="2" y="%.1f" font-size="11">%s</text>`+"\n",
		pad, y(lo), wd-pad, y(lo), y(hi)+10, diffValue(s.Unit, hi), y(lo), diffValue(s.Unit, lo))
	cuts := []int{0}
	for _, c := range s.Changes {
		cuts = append(cuts, c.Index)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#c00" stroke-width="2"><title>change at #%d %s: %s</title></line>`+"\n",
			x(float64(c.Index)-0.5), pad/2, x(float64(c.Index)-0.5), ht-pad/2, c.Index+1, html.EscapeString(h.Points[c.Index].Label), fmt.Sprintf("%+.1f%%, p=%.3f", 100*(c.Ratio()-1), c.P))
	}
	cuts = append(cuts, n)
	for i := 0; i+1 < len(cuts); i++ {
		m := stats.Median(s.Values[cuts[i]:cuts[i+1]])
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#3a7" stroke-dasharray="6 4"/>`+"\n", x(float64(cuts[i])), y(m), x(float64(cuts[i+1]-1)), y(m))
	}
	var pts []string
	for i, v := range s.Values {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(i)), y(v)))
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="#36c" points="%s"/>`+"\n", strings.Join(pts, " "))
	for i, v := range s.Values {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#36c"><title>#%d %s: %s</title></circle>`+"\n", x(float64(i)), y(v), i+1, html.EscapeString(h.Points[i].Label), diffValue(s.Unit, v))
	}
	b.WriteString("</svg>\n")
}
