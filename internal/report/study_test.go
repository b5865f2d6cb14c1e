package report

import "testing"

// TestWallTime: the fixed work's wall time is printed as a duration, to
// the second past a minute.
func TestWallTime(t *testing.T) {
	for s, want := range map[float64]string{4489: "1h14m49s", 4.23: "4.2s", 0.1854: "185ms"} {
		if got := wallTime(s); got != want {
			t.Errorf("wallTime(%v) = %q, want %q", s, got, want)
		}
	}
}
