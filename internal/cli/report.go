package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

func (a *app) reportCommand() *cobra.Command {
	var out, html, csvOut string
	cmd := &cobra.Command{
		Use:   "report RESULT.json... | STUDY",
		Short: "Re-render saved results (several are merged exactly) or a study, as tables or as an HTML page with charts",
		Long: `report prints saved results again; several results of one workload that ran
at the same time are merged exactly (histograms, counts). A study (its
study.json, or the directory that holds it) prints its comparison.
--html also writes one self-contained HTML page with charts, which opens
without a network; --csv writes a result's progress intervals (one row per
op per interval) or a study's cells (one row per op per cell) as CSV.

  txnbench report run.json --html run.html --csv run.csv
  txnbench report study-20250101-120000 --html study.html`,
		RunE: func(cmd *cobra.Command, files []string) error {
			if len(files) == 0 {
				//lint:ignore ST1005 "RESULT.json..." is the usage line's "one or more", as the help writes it
				return usage(errors.New("no result files given: txnbench report RESULT.json..."))
			}
			outs := []outFile{{"--html", html}, {"--json", out}, {"--csv", csvOut}}
			if err := checkOutFiles(outs...); err != nil {
				return err
			}
			if path, ok := studyPath(files); ok {
				if len(files) > 1 {
					return usage(fmt.Errorf("%s is a study: report one study at a time, without results beside it", files[0]))
				}
				if out != "" {
					return usage(errors.New("--json merges results; a study is already saved as study.json"))
				}
				return a.reportStudy(path, html, csvOut)
			}
			if err := checkNotInputs(files, outs...); err != nil {
				return err
			}
			var rs []*result.Result
			for _, f := range files {
				r, err := result.Load(f)
				if err != nil {
					return usage(err)
				}
				rs = append(rs, r)
			}
			m, err := result.Merge(rs)
			if inc := (*result.Incomparable)(nil); errors.As(err, &inc) {
				inc.Names = files
			}
			if same := (*result.SamePart)(nil); errors.As(err, &same) {
				same.Names = files
			}
			if err != nil {
				return usage(err)
			}
			if out != "" { // files first: a reader that stops early (| head) does not cost them
				if err := m.Save(out); err != nil {
					return err
				}
				a.status("merged result saved to " + out)
			}
			if html != "" {
				if err := a.writeOut(html, "HTML report", func(w io.Writer) error { return report.HTML(w, m) }); err != nil {
					return err
				}
			}
			if csvOut != "" {
				if err := a.writeCSV(csvOut, m); err != nil {
					return err
				}
			}
			report.Summary(a.stdout, m)
			if m.Invariants.Violated() {
				bad := 0
				for _, r := range rs {
					if r.Invariants.Violated() {
						bad++
					}
				}
				return exitError{code: exitcode.Invariants, msg: fmt.Sprintf("invariants violated in %d of the %d results", bad, len(rs))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "json", "", "also write the (merged) result to this file")
	cmd.Flags().StringVar(&html, "html", "", "also write a self-contained HTML report with charts to this file")
	cmd.Flags().StringVar(&csvOut, "csv", "", "also write a result's progress intervals, or a study's cells, as CSV to this file")
	return cmd
}

// studyPath says whether the arguments name a study: a directory (its
// study.json) or a file whose format is a study's.
func studyPath(files []string) (string, bool) {
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			return filepath.Join(f, "study.json"), true
		}
		b, err := result.ReadFile(f)
		if err != nil {
			continue // result.Load says why
		}
		var head struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(b, &head) == nil && head.Format == study.Format {
			return f, true
		}
	}
	return "", false
}

// reportStudy prints a saved study and, with html, writes its page, with
// csvOut its cells as CSV; neither may be a file of the study.
func (a *app) reportStudy(path, html, csvOut string) error {
	s, err := loadStudy(path)
	if err != nil {
		return usage(err)
	}
	inputs := []string{path}
	for _, c := range s.Cells {
		for _, f := range c.Results {
			inputs = append(inputs, studyResultPath(filepath.Dir(path), f))
		}
	}
	if err := checkNotInputs(inputs, outFile{"--html", html}, outFile{"--csv", csvOut}); err != nil {
		return err
	}
	runs := make([]*result.Result, len(s.Cells))
	for i, c := range s.Cells {
		if len(c.Results) == 0 {
			continue
		}
		f := studyResultPath(filepath.Dir(path), c.Results[0])
		r, err := result.Load(f)
		if err != nil {
			a.status(fmt.Sprintf("cell %s: %v (its charts over time are left out)", c.Label, err))
			continue
		}
		runs[i] = r
	}
	// every repetition, for the client vs server medians; a cell with a
	// run that cannot be read gets no rows there
	all := make([][]*result.Result, len(s.Cells))
	for i, c := range s.Cells {
		for k, file := range c.Results {
			r := runs[i]
			if k > 0 {
				var err error
				if r, err = result.Load(studyResultPath(filepath.Dir(path), file)); err != nil {
					a.status(fmt.Sprintf("cell %s: %v (its client vs server rows are left out)", c.Label, err))
				}
			}
			if r == nil {
				all[i] = nil
				break
			}
			all[i] = append(all[i], r)
		}
	}
	if html != "" { // files first: a reader that stops early (| head) does not cost them
		if err := a.writeOut(html, "HTML report", func(w io.Writer) error { return report.StudyHTML(w, s, runs, all) }); err != nil {
			return err
		}
	}
	if csvOut != "" {
		if err := a.writeOut(csvOut, "CSV", func(w io.Writer) error { return report.StudyCSV(w, s) }); err != nil {
			return err
		}
	}
	report.StudyMarkdown(a.stdout, s, all)
	for _, c := range s.Cells {
		if c.Invariants().Violated() {
			return exitError{code: exitcode.Invariants, msg: "invariants violated in cell " + c.Label}
		}
	}
	return nil
}

// loadStudy reads a study.json.
func loadStudy(path string) (*study.Summary, error) {
	b, err := result.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && filepath.Base(path) == "study.json" {
			return nil, fmt.Errorf("%s does not exist: give a study's directory (written by txnbench study --out) or its study.json", path)
		}
		return nil, err
	}
	var s study.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is not a txnbench study: %w", path, err)
	}
	if s.Format != study.Format {
		return nil, fmt.Errorf("%s is not a txnbench study (format %q, want %q)", path, s.Format, study.Format)
	}
	return &s, nil
}

// studyResultPath finds a cell's result file: relative to the study's
// directory, or as recorded (relative to where the study ran), or by its
// name beside study.json (the directory was moved).
func studyResultPath(dir, file string) string {
	if filepath.IsAbs(file) {
		if _, err := os.Stat(file); err == nil {
			return file
		}
		return filepath.Join(dir, filepath.Base(file))
	}
	for _, p := range []string{filepath.Join(dir, file), file, filepath.Join(dir, filepath.Base(file))} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(dir, file)
}

// writeOut writes path through write (writeAtomic) and says so: "what
// written to path".
func (a *app) writeOut(path, what string, write func(io.Writer) error) error {
	if err := writeAtomic(path, write); err != nil {
		return err
	}
	a.status(what + " written to " + path)
	return nil
}

// writeAtomic writes a file through write, atomically: a reader sees the
// old file or the whole new one, never a part.
func writeAtomic(path string, write func(io.Writer) error) error {
	if err := result.WriteFile(path, write); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
