package runner

import (
	"testing"
	"time"
)

// TestDefaultProgress: the default interval gives a run at least 10
// intervals, from 100 ms to 10 s.
func TestDefaultProgress(t *testing.T) {
	for _, tc := range []struct{ duration, want time.Duration }{
		{0, 10 * time.Second}, // --iterations: length unknown
		{300 * time.Millisecond, 100 * time.Millisecond},
		{time.Second, 100 * time.Millisecond},
		{1999 * time.Millisecond, 100 * time.Millisecond},
		{2 * time.Second, 200 * time.Millisecond},
		{10 * time.Second, time.Second},
		{30 * time.Second, 2 * time.Second},
		{60 * time.Second, 5 * time.Second},
		{100 * time.Second, 10 * time.Second},
		{time.Hour, 10 * time.Second},
	} {
		got := DefaultProgress(tc.duration)
		if got != tc.want {
			t.Errorf("DefaultProgress(%s) = %s, want %s", tc.duration, got, tc.want)
		}
		if tc.duration >= time.Second && tc.duration <= 100*time.Second && tc.duration/got < 10 {
			t.Errorf("DefaultProgress(%s) = %s: fewer than 10 intervals", tc.duration, got)
		}
	}
}
