package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/txnbench/txnbench/internal/changepoint"
	"github.com/txnbench/txnbench/internal/diff"
	"github.com/txnbench/txnbench/internal/report"
)

func (a *app) historyCommand() *cobra.Command {
	var (
		format, order, htmlOut, jsonOut, metric string
		p, minChange                            float64
	)
	cmd := &cobra.Command{
		Use:   "history DIR|FILES... [--order time|given|label] [--format text|markdown] [--html FILE] [--json FILE]",
		Short: "Find where a metric changed in a series of saved results, studies or suites",
		Long: `history reads a series of saved measurements of one kind (result JSONs,
studies or suites, as txnbench diff takes them; a DIR of them: its *.json
files and its subdirectories holding study.json or suite.json), puts them in
order and finds, for every metric diff compares (per scenario or cell), the
points where its level changed: E-divisive with means, as in MongoDB's
performance CI and DataStax Hunter, each change kept only when a permutation
test gives p below --p. For each change it prints the metric, where (the
index of the first point after it and its label), the medians before and
after, the change and its p.

A point's label is its file's name without .json (the directory's name for a
study or suite directory): save each CI run as, say, history/0042-abc1234.json.
Points are ordered by the time their runs started (--order time), as given
(--order given) or by label (--order label).

Exit status: 0 (changes or none), 2 bad input.

  txnbench history ci-history/
  txnbench history ci-history/ --format markdown >> "$GITHUB_STEP_SUMMARY"
  txnbench history base-*.json --html history.html`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text", "markdown":
			default:
				return usage(fmt.Errorf("--format %q: give text or markdown", format))
			}
			switch order {
			case "time", "given", "label":
			default:
				return usage(fmt.Errorf("--order %q: give time, given or label", order))
			}
			if err := checkFinite("--p", p); err != nil {
				return err
			}
			if p <= 0 || p >= 1 {
				return usage(fmt.Errorf("--p %g: give a probability between 0 and 1, e.g. --p 0.01", p))
			}
			if err := checkFinite("--min-change", minChange); err != nil {
				return err
			}
			if minChange < 0 {
				return usage(fmt.Errorf("--min-change %g: give a percentage of 0 or more, e.g. --min-change 5", minChange))
			}
			var re *regexp.Regexp
			if metric != "" {
				var err error
				if re, err = regexp.Compile(metric); err != nil {
					return usage(fmt.Errorf("--metric %q is not a regular expression: %v", metric, err))
				}
			}
			if err := checkOutFiles(outFile{"--html", htmlOut}, outFile{"--json", jsonOut}); err != nil {
				return err
			}
			h, files, err := loadHistory(args, order, re)
			if err != nil {
				return err
			}
			if err := checkNotInputs(files, outFile{"--html", htmlOut}, outFile{"--json", jsonOut}); err != nil {
				return err
			}
			h.P, h.MinChangePct = p, minChange
			for i := range h.Series {
				s := &h.Series[i]
				for _, c := range changepoint.Detect(s.Values, changepoint.Options{P: p}) {
					if 100*math.Abs(c.Ratio()-1) >= minChange {
						s.Changes = append(s.Changes, c)
					}
				}
			}
			if format == "markdown" {
				report.HistoryMarkdown(a.stdout, h)
			} else {
				report.HistoryText(a.stdout, h)
			}
			if htmlOut != "" {
				if err := writeAtomic(htmlOut, func(w io.Writer) error { return report.HistoryHTML(w, h) }); err != nil {
					return err
				}
			}
			if jsonOut != "" {
				b, err := json.MarshalIndent(h, "", "  ")
				if err != nil {
					return fmt.Errorf("encoding the history: %w", err)
				}
				if err := writeAtomic(jsonOut, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&format, "format", "text", "text, or markdown (a CI job's summary, a pull request's comment)")
	fs.StringVar(&order, "order", "time", "the order of the points: time (when their runs started), given (as on the command line, a DIR's by name) or label")
	fs.StringVar(&htmlOut, "html", "", "also write a self-contained HTML page with a chart of every metric that changed")
	fs.StringVar(&jsonOut, "json", "", "also write the series and their changes as JSON to this file")
	fs.StringVar(&metric, "metric", "", "only the metrics whose name (\"SCENARIO: METRIC\") matches this regular expression")
	fs.Float64Var(&p, "p", changepoint.DefaultP, "a change is named when its permutation test's p is below this")
	fs.Float64Var(&minChange, "min-change", 5, "and when its medians before and after differ by at least this many %")
	return cmd
}

// historyPoint is one loaded point before the series are built.
type historyPoint struct {
	point changepoint.Point
	in    *diff.Input
	arg   int // its place among the arguments, for --order given
}

// loadHistory reads every argument (expanding a DIR of saved
// measurements) into points of one kind, orders them and builds the
// series of every metric matching re (all when nil) that every point has
// with enough samples; it returns the files read too.
func loadHistory(args []string, order string, re *regexp.Regexp) (*changepoint.History, []string, error) {
	var paths []string
	for _, a := range args {
		ps, err := historyPaths(a)
		if err != nil {
			return nil, nil, usage(err)
		}
		paths = append(paths, ps...)
	}
	least := 2 * changepoint.DefaultMinSize
	if len(paths) < least {
		return nil, nil, usage(fmt.Errorf("history needs at least %d saved results, studies or suites to find a change in, got %d: give more files or a directory of them", least, len(paths)))
	}
	var pts []historyPoint
	var files []string
	for i, path := range paths {
		in, err := diff.Load(path)
		if err != nil {
			return nil, nil, usage(err)
		}
		if len(pts) > 0 && in.Kind != pts[0].in.Kind {
			return nil, nil, usage(fmt.Errorf("%s is a %s and %s a %s: a history is of one kind (results, studies or suites); give them separately", pts[0].in.Path, pts[0].in.Kind, path, in.Kind))
		}
		files = append(files, in.Files...)
		pts = append(pts, historyPoint{point: changepoint.Point{Label: historyLabel(path), File: path, Time: started(in)}, in: in, arg: i})
	}
	slices.SortStableFunc(pts, func(x, y historyPoint) int {
		switch order {
		case "time":
			return x.point.Time.Compare(y.point.Time)
		case "label":
			return strings.Compare(x.point.Label, y.point.Label)
		}
		return x.arg - y.arg
	})
	h := &changepoint.History{Kind: string(pts[0].in.Kind)}
	type key struct{ unit, metric string }
	var keys []key
	byKey := map[key]*changepoint.Series{}
	count := map[key]int{}
	seen := map[key]bool{} // with enough samples in some point
	for i, pt := range pts {
		h.Points = append(h.Points, pt.point)
		for j := range pt.in.Units {
			u := &pt.in.Units[j]
			for _, m := range diff.Metrics(u) {
				if m.Family == diff.FamErrors || m.Family == diff.FamInvariants {
					continue // rates of rare events and a pass/fail: no level to change
				}
				name := m.Name
				if h.Kind != string(diff.KindResult) {
					name = u.Name + ": " + m.Name
				}
				if re != nil && !re.MatchString(name) {
					continue
				}
				k := key{u.Name, m.Name}
				s := byKey[k]
				if s == nil {
					if i > 0 {
						continue // not in the first point
					}
					s = &changepoint.Series{Name: name, Unit: m.Unit, HigherBetter: m.HigherBetter}
					byKey[k] = s
					keys = append(keys, k)
				}
				if m.Enough && m.Value > 0 && len(s.Values) == i {
					s.Values = append(s.Values, m.Value)
					count[k]++
				}
				if m.Enough {
					seen[k] = true
				}
			}
		}
	}
	for _, k := range keys {
		if count[k] == len(pts) {
			h.Series = append(h.Series, *byKey[k])
		} else if seen[k] {
			h.Skipped = append(h.Skipped, byKey[k].Name)
		}
	}
	return h, files, nil
}

// historyPaths is what one argument names: itself when it is a file or a
// study's or suite's directory, else the directory's *.json files and
// its subdirectories holding study.json or suite.json, by name.
func historyPaths(arg string) ([]string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: no such file or directory: give saved results, studies or suites, or a directory of them", arg)
	}
	if !st.IsDir() || isMeasurementDir(arg) {
		return []string{arg}, nil
	}
	entries, err := os.ReadDir(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(arg, e.Name())
		if e.IsDir() && isMeasurementDir(p) || !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no result JSONs and no study or suite directories: give the directory the saved runs are in", arg)
	}
	return out, nil
}

// isMeasurementDir tells whether dir is a study's or a suite's directory.
func isMeasurementDir(dir string) bool {
	for _, name := range []string{"suite.json", "study.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// historyLabel is a point's label: the file's name without .json, or the
// directory's (the parent's for a study.json or suite.json).
func historyLabel(path string) string {
	base := filepath.Base(filepath.Clean(path))
	if base == "study.json" || base == "suite.json" {
		return filepath.Base(filepath.Dir(filepath.Clean(path)))
	}
	return strings.TrimSuffix(base, ".json")
}

// started is when the earliest run of in started.
func started(in *diff.Input) time.Time {
	var t time.Time
	for _, u := range in.Units {
		for _, r := range u.Results {
			if t.IsZero() || r.Started.Before(t) {
				t = r.Started
			}
		}
	}
	return t
}
