package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// Window accounts for the ops the table's counts leave out: those of the
// window that completed in the grace period after it (in the latency
// columns, not in ops or ops/s) and those still running when the run
// ended, with how long they had run; and says when the run stalled.
func Window(w io.Writer, r *result.Result) {
	for _, l := range windowNotes(r) {
		fmt.Fprintln(w, l)
	}
}

// windowNotes are Window's lines (none for a run that needs none).
func windowNotes(r *result.Result) []string {
	var after, unfinished []string
	for _, o := range orderedOps(r) {
		if o.AfterWindow > 0 {
			after = append(after, fmt.Sprintf("%s %s", firstLine(o.Name, 48), thousands(o.AfterWindow)))
		}
		if o.Unfinished > 0 {
			unfinished = append(unfinished, fmt.Sprintf("%s %s (running %s ms or more)", firstLine(o.Name, 48), thousands(o.Unfinished), ms(o.UnfinishedMaxMS)))
		}
	}
	var lines []string
	if len(after) > 0 {
		lines = append(lines, "completed after the window, or earlier in a cycle that ended after it (in the latencies, not in ops or ops/s): "+strings.Join(after, ", "))
	}
	if len(unfinished) > 0 {
		lines = append(lines, "unfinished when the run ended (in no column): "+strings.Join(unfinished, ", "))
	}
	if s := r.Stalled; s != nil {
		lines = append(lines, fmt.Sprintf("stalled: %d clients waiting since %.1f s", s.Clients, s.SinceS))
	}
	return lines
}
