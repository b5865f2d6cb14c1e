package runner

import "github.com/txnbench/txnbench/internal/result"

// Observer watches a run as it goes, like k6's outputs: the live metrics
// endpoint, telemetry and progress printing are observers, given to the
// runner once in Config.Observers. The runner calls them from one
// goroutine, each in the order of the list:
//   - Start once as the measured window opens (before the first client
//     starts without a warm-up, at its end with one), before any op counts,
//     so telemetry can take its baseline; the window waits for it, the
//     clients do not.
//   - Tick with each interval as it closes; the interval's histograms are
//     in memory for the call only (they are compacted after).
//   - WindowEnd once as the measured window ends (the duration is up, the
//     iterations are claimed or the run is interrupted), while the
//     clients' last ops may still be running.
//   - Stop once when every client is done.
type Observer interface {
	Start()
	Tick(result.Interval)
	WindowEnd()
	Stop()
}

// Funcs is an Observer made of functions; nil ones do nothing.
type Funcs struct {
	OnStart     func()
	OnTick      func(result.Interval)
	OnWindowEnd func()
	OnStop      func()
}

// Start calls OnStart.
func (f Funcs) Start() {
	if f.OnStart != nil {
		f.OnStart()
	}
}

// Tick calls OnTick.
func (f Funcs) Tick(iv result.Interval) {
	if f.OnTick != nil {
		f.OnTick(iv)
	}
}

// WindowEnd calls OnWindowEnd.
func (f Funcs) WindowEnd() {
	if f.OnWindowEnd != nil {
		f.OnWindowEnd()
	}
}

// Stop calls OnStop.
func (f Funcs) Stop() {
	if f.OnStop != nil {
		f.OnStop()
	}
}
