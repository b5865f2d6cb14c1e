package diff

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/report/texttable"
)

// Write renders the report as text: what was compared and with which
// thresholds, a table per scenario (metric, base, new, change, threshold,
// verdict) with its notes, and a summary line.
func Write(w io.Writer, r *Report) {
	fmt.Fprintf(w, "txnbench diff: %s %s (base) vs %s (new)\n", r.Kind, r.Base, r.New)
	fmt.Fprintln(w, thresholdsText(r))
	if len(r.Different) > 0 {
		fmt.Fprintf(w, "WARNING: fixed settings differ, compared anyway (--allow-different): %s\n", strings.Join(r.Different, "; "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, s := range r.Scenarios {
		fmt.Fprintf(w, "\n## %s\n", s.Name)
		if len(s.Decisions) > 0 {
			rows := [][]string{{"metric", "base", "new", "change", "threshold", "verdict"}}
			for _, d := range s.Decisions {
				rows = append(rows, []string{d.Metric, format(d.Unit, d.Base), format(d.Unit, d.New), change(d), thresholdText(d), verdictText(d)})
			}
			texttable.Write(w, texttable.Plain, rows, 0, len(rows[0])-1)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	fmt.Fprintf(w, "\n%s\n", Summary(r))
}

// thresholdsText says which thresholds and floors decided.
func thresholdsText(r *Report) string {
	t := r.Thresholds
	how := "defaults from measured run-to-run spread"
	if r.Fixed {
		how = "--threshold"
	}
	return fmt.Sprintf("thresholds (%s): throughput %s, mean/p50 %s, p95 %s, p99 %s, errors %s, database %s; changes below %g ms, %g%% points of errors, %g per txn (%d bytes) never count",
		how, pct(t.Throughput), pct(t.Mean), pct(t.P95), pct(t.P99), pct(t.Errors), pct(t.Database),
		LatencyFloorMS, ErrorRateFloor*100, CountPerTxnFloor, BytesPerTxnFloor)
}

// Summary is the report's last line: "2 regressions in 1 of 3 scenarios"
// or "no regressions".
func Summary(r *Report) string {
	what := "scenario"
	if r.Kind == KindStudy {
		what = "cell"
	}
	what += plural(r.Compared)
	var s string
	switch {
	case r.Regressions == 0 && r.Kind == KindResult:
		s = "no regressions"
	case r.Regressions == 0:
		s = fmt.Sprintf("no regressions in %d %s", r.Compared, what)
	case r.Kind == KindResult:
		s = fmt.Sprintf("%d regression%s", r.Regressions, plural(r.Regressions))
	default:
		s = fmt.Sprintf("%d regression%s in %d of %d %s", r.Regressions, plural(r.Regressions), r.Regressed, r.Compared, what)
	}
	return s + fmt.Sprintf(" (%d better)", r.Improved)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// format prints a value in its unit.
func format(unit string, v float64) string {
	switch unit {
	case unitRate:
		return texttable.Fixed(v, 1)
	case unitMS, unitCount: // a count per transaction is a ratio: its digits like a latency's
		return texttable.MS(v)
	case unitRatio:
		return texttable.Fixed(100*v, 2) + "%"
	case unitBytes:
		return texttable.Count(v)
	case unitOK:
		if v >= 1 {
			return "OK"
		}
		return "FAILED"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func change(d Decision) string {
	switch {
	case d.Unit == unitOK:
		return "-"
	case d.ChangePct != nil:
		return fmt.Sprintf("%+.1f%%", *d.ChangePct)
	case d.New == d.Base:
		return "0"
	}
	return "from 0"
}

func thresholdText(d Decision) string {
	if d.Unit == unitOK {
		return "-"
	}
	return fmt.Sprintf("%g%%", d.ThresholdPct)
}

func verdictText(d Decision) string {
	switch {
	case d.Verdict == Worse:
		return "WORSE"
	case d.BelowFloor:
		return "ok (< " + format(d.Unit, d.Floor) + ")"
	}
	return d.Verdict
}
