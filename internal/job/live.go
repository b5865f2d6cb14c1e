package job

import (
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// watchLive, with Spec.Live set, gives it the run so far after each
// interval: a runner observer takes the partial Outcome, a goroutine of
// its own assembles it (partial) and hands it on, skipping to the latest
// when it falls behind. The window's end stops it and waits for the
// goroutine, before the observers after it end their part of the window
// (the network's figures are written then): Live's last call comes before
// the window's end, and so before Run returns the final Result.
func (rn *running) watchLive() error {
	if rn.s.Live == nil {
		return nil
	}
	l := &liveRun{next: make(chan *runner.Outcome, 1), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for out := range l.next {
			rn.s.Live(rn.partial(out, l))
		}
	}()
	rn.first = append(rn.first, l)
	rn.stops.push(l.stop) // a run that stops without its window's end
	return nil
}

// liveRun is watchLive's observer.
type liveRun struct {
	next    chan *runner.Outcome // the latest partial Outcome not yet taken
	done    chan struct{}
	stopped bool // by the window's end (the runner's goroutine) or the stage's stop
	// telemetry is the last snapshot of it (the goroutine's): kept when
	// the sampler is too busy to give the next one in time.
	telemetry *result.Telemetry
}

func (l *liveRun) Start()               {}
func (l *liveRun) Tick(result.Interval) {}
func (l *liveRun) WindowEnd()           { l.stop() }
func (l *liveRun) Stop()                {}

// Partial keeps out as the next to assemble, in place of one not taken
// yet: it never blocks the runner.
func (l *liveRun) Partial(out *runner.Outcome) {
	if l.stopped {
		return
	}
	for {
		select {
		case l.next <- out:
			return
		default:
		}
		select {
		case <-l.next:
		default:
		}
	}
}

func (l *liveRun) stop() {
	if l.stopped {
		return
	}
	l.stopped = true
	close(l.next)
	<-l.done
}

// partial is the Result of the run so far, assembled by assemble, the
// final Result's assembly, from the runner's partial Outcome, with what
// the stages gathered so far: the telemetry's samples and waits, the
// faults injected, the parts' and the machine's CPU since the window
// opened, and what limited the run so far. It leaves out what only the
// end of the run can know or would need a query of its own each interval:
// the statements' server times, the pooler's counters (its samples are in
// the telemetry), the deaths, the slowest ops, the faults' recoveries and
// the invariants (checked after the run).
func (rn *running) partial(out *runner.Outcome, l *liveRun) *result.Result {
	r := assemble(rn.s, rn.db, out)
	if t := rn.collector.Snapshot(); t != nil {
		l.telemetry = t
	}
	r.Telemetry = l.telemetry
	if rn.faults != nil {
		r.Faults = rn.faults.SoFar()
	}
	r.CPU = rn.cpu.sofar(r)
	r.LimitedBy = result.DecideLimit(r)
	return r
}

// sofar is use over the span from Start to now, for the run so far; it
// reads only what Start wrote, so it may run beside Stop.
func (o *partsCPU) sofar(r *result.Result) *result.CPUUse {
	if o == nil || o.from == nil {
		return nil
	}
	now := &partsCPU{db: o.db, at: o.at, to: time.Now(), from: o.from, upto: o.db.partsCPU()}
	now.busy[0], now.tot[0] = o.busy[0], o.tot[0]
	now.busy[1], now.tot[1] = telemetry.MachineTicks()
	return now.use(r)
}
