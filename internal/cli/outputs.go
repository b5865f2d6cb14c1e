package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
)

// jsonlOut writes a run's progress intervals to --jsonl as they close,
// one JSON line each (report.IntervalJSONL), so another tool can tail the
// file. It is a runner.Observer; the file is made when the measured
// window opens, so a run that never starts leaves none.
type jsonlOut struct {
	path string
	f    *os.File
	err  error // the first error; the run goes on and reports it at its end
}

// Start creates (or empties) the file.
func (j *jsonlOut) Start() {
	if j.f != nil || j.err != nil {
		return
	}
	j.f, j.err = os.OpenFile(j.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}

// Tick writes the interval as one line; the file is unbuffered, so the
// line is in the file when Tick returns.
func (j *jsonlOut) Tick(iv result.Interval) {
	if j.f == nil || j.err != nil {
		return
	}
	j.err = report.IntervalJSONL(j.f, iv)
}

// WindowEnd does nothing: the window's last interval comes as a Tick.
func (j *jsonlOut) WindowEnd() {}

// Stop does nothing: close closes the file after the run.
func (j *jsonlOut) Stop() {}

// close closes the file and returns the first error writing it.
func (j *jsonlOut) close() error {
	if j.f != nil {
		if err := j.f.Close(); j.err == nil {
			j.err = err
		}
		j.f = nil
	}
	if j.err != nil {
		return fmt.Errorf("--jsonl %s: %w", j.path, j.err)
	}
	return nil
}

// writeCSV writes the intervals of r to path as CSV (--csv).
func (a *app) writeCSV(path string, r *result.Result) error {
	return a.writeOut(path, "CSV", func(w io.Writer) error { return report.IntervalsCSV(w, r.Intervals) })
}
