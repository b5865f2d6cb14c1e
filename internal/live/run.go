package live

import "github.com/txnbench/txnbench/internal/result"

// Run is one run fed to the metrics as the runner's observer
// (runner.Observer): Start marks its measured window begun, Tick adds each
// interval, Stop marks it over.
type Run struct{ m *Metrics }

// Track begins a run (see Begin) and returns it, to be given to the runner.
func (m *Metrics) Track(info Info) Run {
	m.Begin(info)
	return Run{m}
}

// Start marks the run's measured window as begun.
func (r Run) Start() { r.m.Measuring() }

// Tick adds a closed interval; it cannot fail: the runner made the
// histograms, and this is its run.
func (r Run) Tick(iv result.Interval) { r.m.Observe(iv) }

// WindowEnd does nothing: the window's last interval comes as a Tick.
func (r Run) WindowEnd() {}

// Stop marks the run as over.
func (r Run) Stop() { r.m.End() }
