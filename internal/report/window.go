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

// afterFails says what o's ops retried and failed in the grace period
// after the window, "" when nothing.
func afterFails(o *result.Op) string {
	var parts []string
	if o.AfterWindowRetries > 0 {
		parts = append(parts, thousands(o.AfterWindowRetries)+" retries")
	}
	if len(o.AfterWindowErrors) > 0 {
		var n int64
		for _, v := range o.AfterWindowErrors {
			n += v
		}
		parts = append(parts, fmt.Sprintf("%s errors (%s)", thousands(n), classCounts(o.AfterWindowErrors)))
	}
	if len(parts) == 0 {
		return ""
	}
	return firstLine(o.Name, 48) + " " + strings.Join(parts, ", ")
}

// classCounts is errors by class as "class n" pairs sorted by class.
func classCounts(m map[string]int64) string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + thousands(m[k])
	}
	return strings.Join(parts, ", ")
}

// windowNotes are Window's lines (none for a run that needs none).
func windowNotes(r *result.Result) []string {
	var after, failed, unfinished []string
	for o := range orderedOps(r) {
		if o.AfterWindow > 0 {
			after = append(after, fmt.Sprintf("%s %s", firstLine(o.Name, 48), thousands(o.AfterWindow)))
		}
		if l := afterFails(o); l != "" {
			failed = append(failed, l)
		}
		if o.Unfinished > 0 {
			unfinished = append(unfinished, fmt.Sprintf("%s %s (running %s ms or more)", firstLine(o.Name, 48), thousands(o.Unfinished), ms(o.UnfinishedMaxMS)))
		}
	}
	var lines []string
	if len(after) > 0 {
		lines = append(lines, "completed after the window, or earlier in a cycle that ended after it (in the latencies, not in ops or ops/s): "+strings.Join(after, ", "))
	}
	if len(failed) > 0 {
		lines = append(lines, "retried or failed after the window (in no column): "+strings.Join(failed, ", "))
	}
	if len(unfinished) > 0 {
		lines = append(lines, "unfinished when the run ended (in no column): "+strings.Join(unfinished, ", "))
	}
	if b := r.Behind; b != nil {
		lines = append(lines, behindLine(b))
	}
	if s := r.Stalled; s != nil {
		lines = append(lines, fmt.Sprintf("stalled: %d clients waiting since %.1f s", s.Clients, s.SinceS))
	}
	return lines
}

// behindLine says in one line that a run's --rate schedule fell behind.
func behindLine(b *result.Behind) string {
	return "BEHIND SCHEDULE: " + b.Text() + ": the clients or the database did not keep up, so latencies from the intended start include the backlog"
}
