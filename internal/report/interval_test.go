package report

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
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

// TestIntervalLabels: each progress line is labelled by its interval's
// own end time, with the decimals the interval needs: at 0.5 s the labels
// were 1s, 1s, 2s, 2s.
func TestIntervalLabels(t *testing.T) {
	for _, tc := range []struct {
		length float64
		ends   []float64
		want   []string
	}{
		{0.5, []float64{0.5, 1.0002, 1.5, 2}, []string{"0.5s", "1.0s", "1.5s", "2.0s"}},
		{1, []float64{1, 2.0004, 3}, []string{"1s", "2s", "3s"}},
		{0.25, []float64{0.25, 0.5, 0.75}, []string{"0.25s", "0.50s", "0.75s"}},
		{0.1, []float64{0.1, 0.2}, []string{"0.1s", "0.2s"}},
		{0.287, []float64{10.287}, []string{"10.3s"}}, // a last sliver
		{0.52, []float64{0.52}, []string{"0.5s"}},     // a first tick a little late
		{0.48, []float64{1.0}, []string{"1.0s"}},      // and the next one on time
	} {
		for i, end := range tc.ends {
			if got := strings.TrimSpace(intervalLabel(result.Interval{ElapsedS: end, LengthS: tc.length})); got != tc.want[i] {
				t.Errorf("interval of %g s ending at %g: label %q, want %q", tc.length, end, got, tc.want[i])
			}
		}
	}
}
