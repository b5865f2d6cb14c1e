package runner

import "time"

// progressSteps are the intervals DefaultProgress picks from, longest first.
var progressSteps = []time.Duration{
	10 * time.Second, 5 * time.Second, 2 * time.Second, time.Second,
	500 * time.Millisecond, 200 * time.Millisecond, 100 * time.Millisecond,
}

// DefaultProgress is the interval between ticks (progress lines, chart
// points, telemetry samples) when none is given: the longest of 10 s, 5 s,
// 2 s, 1 s, 500 ms, 200 ms and 100 ms that cuts a measured window of the
// given duration into at least 10 intervals, so a short run's charts over
// time have points to draw; 100 ms for a window under a second, 10 s for
// a run of --iterations (duration 0: its length is unknown).
func DefaultProgress(duration time.Duration) time.Duration {
	if duration <= 0 {
		return progressSteps[0]
	}
	for _, step := range progressSteps {
		if duration >= 10*step {
			return step
		}
	}
	return progressSteps[len(progressSteps)-1]
}
