package report

import (
	"strings"
	"testing"
)

// TestHTMLOneIntervalNote: a run whose window was one progress interval
// says so on its chart over time, instead of showing a lone dot; a run
// with more intervals has no such note.
func TestHTMLOneIntervalNote(t *testing.T) {
	note := func(n int) string {
		r := htmlResult()
		r.Intervals = r.Intervals[:n]
		_, d := dataOf(t, render1(t, r))
		for _, s := range d.Sections {
			for _, c := range s.Charts {
				if c.ID == "throughput" {
					return c.Note
				}
			}
		}
		t.Fatalf("%d intervals: no throughput chart", n)
		return ""
	}
	if got := note(1); !strings.Contains(got, "one point") || !strings.Contains(got, "--progress") {
		t.Errorf("one interval: note %q", got)
	}
	if got := note(3); got != "" {
		t.Errorf("three intervals: note %q", got)
	}
}
