package runner

import (
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// A PartialObserver is an Observer that also takes, after each interval's
// Tick, the run so far as an Outcome: the ops' totals up to that interval
// (their histograms copies, the caller's to keep), the intervals so far
// (their histograms at rest, to read only)
// and the client's CPU since the window opened. The live dashboard
// assembles a Result from it each interval, as the job assembles the
// final one from Run's Outcome. Partial is called from the runner's
// ticking goroutine: it must hand the Outcome on, not work on it there.
type PartialObserver interface {
	Observer
	Partial(*Outcome)
}

// partial is the run so far as an Outcome, as of the interval that just
// closed at now: what Run would return had the window ended there, but
// the ops' unfinished, late and after-window counts, which only the end
// of the run can know, are those so far.
func (r *run) partial(out *Outcome, now time.Time) *Outcome {
	p := &Outcome{Started: out.Started, Ended: now,
		Measured:  now.Sub(time.Unix(0, r.measureAt.Load())),
		Aborted:   int(r.aborted.Load()),
		Intervals: append([]result.Interval(nil), out.Intervals...),
		CPU:       readCPU().Sub(r.cpu0),
	}
	p.Ops = r.results(r.rec.Total(), nil, r.counts.snapshot())
	for i := range p.Ops { // the counts since the last interval are the next one's
		p.Ops[i].AfterWindowRetries, p.Ops[i].AfterWindowErrors = 0, nil
	}
	return p
}

// partialObservers are the observers that take the run so far.
func partialObservers(os []Observer) []PartialObserver {
	var ps []PartialObserver
	for _, o := range os {
		if p, ok := o.(PartialObserver); ok {
			ps = append(ps, p)
		}
	}
	return ps
}
