package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/diff"
	"github.com/txnbench/txnbench/internal/report/texttable"
)

// DiffText renders a diff report (txnbench diff) as text: what was compared and with which
// thresholds, a table per scenario (metric, base, new, change, threshold,
// verdict) with its notes, and a summary line.
func DiffText(w io.Writer, r *diff.Report) {
	fmt.Fprintf(w, "txnbench diff: %s %s (base) vs %s (new)\n", r.Kind, r.Base, r.New)
	fmt.Fprintln(w, diffThresholds(r))
	if len(r.Different) > 0 {
		fmt.Fprintf(w, "WARNING: fixed settings differ, compared anyway (--allow-different): %s\n", strings.Join(r.Different, "; "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, s := range r.Scenarios {
		fmt.Fprintf(w, "\n## %s\n", s.Name)
		if len(s.Decisions) > 0 {
			rows := [][]string{{"metric", "base", "new", "change", "95% interval", "threshold", "verdict"}}
			for _, d := range s.Decisions {
				rows = append(rows, []string{d.Metric, diffValue(d.Unit, d.Base), diffValue(d.Unit, d.New), diffChange(d), DiffInterval(d), diffThreshold(d), diffVerdict(d)})
			}
			texttable.Write(w, texttable.Plain, rows, 0, len(rows[0])-1)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	fmt.Fprintf(w, "\n%s\n", DiffSummary(r))
}

// diffThresholds says which thresholds and floors decided.
func diffThresholds(r *diff.Report) string {
	t := r.Thresholds
	how := "defaults from measured run-to-run spread"
	if r.Fixed {
		how = "--threshold"
	}
	return fmt.Sprintf("thresholds (%s): throughput %s, mean/p50 %s, p95 %s, p99 %s, errors %s, database %s; changes below %g ms (plus %g ms x a single run's busy share), %g%% points of errors, %g per txn (%d bytes) never count; a change beyond its threshold whose 95%% interval holds no change is ~, not a regression",
		how, diff.Pct(t.Throughput), diff.Pct(t.Mean), diff.Pct(t.P95), diff.Pct(t.P99), diff.Pct(t.Errors), diff.Pct(t.Database),
		diff.LatencyFloorMS, diff.BusyFloorMS, diff.ErrorRateFloor*100, diff.CountPerTxnFloor, diff.BytesPerTxnFloor)
}

// DiffSummary is the report's last line: "2 regressions in 1 of 3 scenarios"
// or "no regressions".
func DiffSummary(r *diff.Report) string {
	what := "scenario"
	if r.Kind == diff.KindStudy {
		what = "cell"
	}
	what += plural(r.Compared)
	var s string
	switch {
	case r.Regressions == 0 && r.Kind == diff.KindResult:
		s = "no regressions"
	case r.Regressions == 0:
		s = fmt.Sprintf("no regressions in %d %s", r.Compared, what)
	case r.Kind == diff.KindResult:
		s = fmt.Sprintf("%d regression%s", r.Regressions, plural(r.Regressions))
	default:
		s = fmt.Sprintf("%d regression%s in %d of %d %s", r.Regressions, plural(r.Regressions), r.Regressed, r.Compared, what)
	}
	s += fmt.Sprintf(" (%d better", r.Improved)
	if r.NotSignificant > 0 {
		s += fmt.Sprintf(", %d beyond a threshold but not significant: ~", r.NotSignificant)
	}
	return s + ")"
}

// DiffInterval is a decision's 95% interval of the change: "-12.0% to
// +3.5%", "noise unknown" for a rate or latency of one run of one
// interval a side, "-" for a family decided by its threshold alone.
func DiffInterval(d diff.Decision) string {
	switch {
	case d.Stats != nil:
		return fmt.Sprintf("%+.1f%% to %+.1f%%", d.Stats.LowPct, d.Stats.HighPct)
	case d.NoiseUnknown:
		return "noise unknown"
	}
	return "-"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// diffValue prints a value in its unit.
func diffValue(unit string, v float64) string {
	switch unit {
	case diff.UnitRate:
		return texttable.Fixed(v, 1)
	case diff.UnitMS, diff.UnitCount: // a count per transaction is a ratio: its digits like a latency's
		return texttable.MS(v)
	case diff.UnitRatio:
		return texttable.Fixed(100*v, 2) + "%"
	case diff.UnitBytes:
		return texttable.Count(v)
	case diff.UnitOK:
		if v >= 1 {
			return "OK"
		}
		return "FAILED"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func diffChange(d diff.Decision) string {
	switch {
	case d.Unit == diff.UnitOK:
		return "-"
	case d.ChangePct != nil:
		return fmt.Sprintf("%+.1f%%", *d.ChangePct)
	case d.New == d.Base:
		return "0"
	}
	return "from 0"
}

func diffThreshold(d diff.Decision) string {
	if d.Unit == diff.UnitOK {
		return "-"
	}
	return fmt.Sprintf("%g%%", d.ThresholdPct)
}

func diffVerdict(d diff.Decision) string {
	switch {
	case d.Verdict == diff.Worse:
		return "WORSE"
	case d.BelowFloor:
		return "ok (< " + diffValue(d.Unit, d.Floor) + ")"
	case d.Verdict == diff.Same:
		return fmt.Sprintf("~ (p=%.2f)", d.Stats.P)
	}
	return d.Verdict
}

// DiffMarkdown renders a diff report as GitHub-flavoured Markdown, for a
// pull request's comment or a CI job's summary: the summary line first,
// what was compared and with which thresholds, then a table per scenario
// (metric, base, new, change, threshold, verdict, a regression in bold)
// with its notes.
func DiffMarkdown(w io.Writer, r *diff.Report) {
	fmt.Fprintf(w, "### txnbench diff: %s\n\n", texttable.Escape(DiffSummary(r)))
	fmt.Fprintf(w, "%s `%s` (base) vs `%s` (new). %s\n", r.Kind, r.Base, r.New, texttable.Escape(diffThresholds(r)))
	if len(r.Different) > 0 {
		fmt.Fprintf(w, "\n> **Warning:** fixed settings differ, compared anyway (--allow-different): %s\n", texttable.Escape(strings.Join(r.Different, "; ")))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n- %s", texttable.Escape(n))
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, s := range r.Scenarios {
		fmt.Fprintf(w, "\n#### %s\n", texttable.Escape(s.Name))
		if len(s.Decisions) > 0 {
			fmt.Fprintln(w)
			rows := [][]string{{"metric", "base", "new", "change", "95% interval", "threshold", "verdict"}}
			for _, d := range s.Decisions {
				verdict := texttable.Escape(diffVerdict(d))
				if d.Verdict == diff.Worse {
					verdict = "**" + verdict + "**"
				}
				rows = append(rows, []string{texttable.Escape(d.Metric), diffValue(d.Unit, d.Base), diffValue(d.Unit, d.New), diffChange(d), DiffInterval(d), diffThreshold(d), verdict})
			}
			texttable.Write(w, texttable.Markdown, rows, 0, 6)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "\n- %s", texttable.Escape(n))
		}
		if len(s.Notes) > 0 {
			fmt.Fprintln(w)
		}
	}
}
