package runner

import "time"

// Clock is the time the runner keeps its window by: when the warm-up and
// the duration end, the progress ticks, the window's and each interval's
// bounds and the stall check. Ops time their latencies and stamp their
// start and end with the real clock (time.Now, no call through Clock on
// the hot path), so a Clock must keep the real clock's time line: a fake
// one starts at time.Now() and only moves forward.
type Clock interface {
	Now() time.Time
	// After sends the time on the channel once d has passed.
	After(d time.Duration) <-chan time.Time
	// NewTicker sends the time on its channel every d (dropping ticks a
	// slow reader misses, as time.Ticker does) until stop is called.
	NewTicker(d time.Duration) (c <-chan time.Time, stop func())
}

// RealClock is the Clock of time.Now, time.After and time.NewTicker; a
// Config without a Clock uses it.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// After is time.After.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTicker is time.NewTicker's channel and Stop.
func (RealClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
