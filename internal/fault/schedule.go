package fault

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
)

// Injector does fault f and returns once it is over: the server or pooler
// is back (or, for a pooler left down, killed), the hang or black hole
// lifted. It returns what it hit ("server", "PgBouncer") and a note on
// what it could not do. ctx is cancelled as the window ends: a fault
// still going on is then ended at once.
type Injector func(ctx context.Context, f Spec) (target, note string)

// step is the resolution of the recovery figures.
const step = 100 * time.Millisecond

// followSpan is how long after the last fault starts its recovery is
// followed: the per-step counts stop there, so that a long window (a
// --duration of days) needs no more of them than its faults do.
const followSpan = time.Hour

// maxEvents bounds the failed cycles (time and class) and the sessions
// opened (time) kept.
const maxEvents = 1 << 20

// Schedule injects a run's faults at their times in the measured window
// and follows the cycles around them. It is a runner.Observer (Observer)
// whose cycles come through OnCycle; Wait returns once every fault is
// over (or its context ends), Faults reads the timeline and what
// followed each fault.
type Schedule struct {
	specs  []Spec
	inject Injector
	// connects is whether Connected counts reconnects (session clients).
	connects bool
	// Log, when set, is told as each fault starts and ends.
	Log func(string)

	t0     atomic.Int64 // window start, unix ns; 0 before
	end    atomic.Int64 // window end, unix ns; 0 before
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	fired   []atomic.Int64 // per fault: when injected (unix ns), 0 until then
	firstOK []atomic.Int64 // per fault: first success of a cycle started after it (unix ns)

	// per step of the window: successful cycles, by the time they ended
	ok []atomic.Int64
	// horizon is where ok ends, ns since the window opened: the window's
	// end, or followSpan after the last fault
	horizon int64

	mu     sync.Mutex
	faults []result.Fault // per spec, filled as it happens
	done   []bool         // per spec: injected and over
	errs   []errorEvent
	opened []int64 // when sessions were opened, unix ns
}

type errorEvent struct {
	at    int64 // unix ns
	class errclass.Class
}

// New makes the schedule of specs for a window of the given length (plus
// the grace after it), injecting with inject. countConnects says whether
// Connected calls are reconnects worth counting (clients that keep a
// session).
func New(specs []Spec, inject Injector, window time.Duration, countConnects bool) *Schedule {
	var last time.Duration // the last fault's start
	for _, f := range specs {
		last = max(last, f.At)
	}
	horizon := min(window, last+followSpan)
	n := int(horizon/step) + 1
	s := &Schedule{
		specs: specs, inject: inject, connects: countConnects,
		fired: make([]atomic.Int64, len(specs)), firstOK: make([]atomic.Int64, len(specs)),
		ok: make([]atomic.Int64, n), horizon: int64(horizon),
		faults: make([]result.Fault, len(specs)), done: make([]bool, len(specs)),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for i, f := range specs {
		s.faults[i] = result.Fault{AtS: f.At.Seconds(), Kind: string(f.Kind), Arg: f.Arg, Injected: true,
			Note: "not injected: the window ended first"}
	}
	return s
}

// Observer is the schedule as the runner watches it: the faults' clock
// starts as the window opens, and faults still going on end with it.
func (s *Schedule) Observer() runner.Observer {
	return runner.Funcs{OnStart: s.start, OnWindowEnd: s.windowEnd}
}

func (s *Schedule) start() {
	t0 := time.Now()
	s.t0.Store(t0.UnixNano())
	for i := range s.specs {
		s.wg.Add(1)
		go s.run(i, t0)
	}
}

func (s *Schedule) windowEnd() {
	s.end.Store(time.Now().UnixNano())
	s.cancel()
}

// run injects fault i at its time.
func (s *Schedule) run(i int, t0 time.Time) {
	defer s.wg.Done()
	f := s.specs[i]
	t := time.NewTimer(time.Until(t0.Add(f.At)))
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return
	case <-t.C:
	}
	at := time.Now()
	s.fired[i].Store(at.UnixNano())
	s.log(fmt.Sprintf("fault at %.1f s: %s", at.Sub(t0).Seconds(), f.Name()))
	hit, note := s.inject(s.ctx, f)
	lasted := time.Since(at)
	if note != "" {
		s.log(fmt.Sprintf("fault %s at %.1f s: %s", f.Name(), at.Sub(t0).Seconds(), note))
	}
	s.mu.Lock()
	s.faults[i].AtS = seconds(at.Sub(t0).Nanoseconds())
	s.faults[i].Target, s.faults[i].Note = hit, note
	s.faults[i].LastedS = seconds(lasted.Nanoseconds())
	s.done[i] = true
	s.mu.Unlock()
}

func (s *Schedule) log(msg string) {
	if s.Log != nil {
		s.Log(msg)
	}
}

// Wait returns once no fault is going on any more (after the window
// ends, every one is over: a killed server is back), or once ctx is done
// (after an interrupt, its budget: a server whose restart is slow is not
// waited for). It reports whether every fault is over.
func (s *Schedule) Wait(ctx context.Context) bool {
	s.cancel() // in case the window never opened
	over := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(over)
	}()
	select {
	case <-over:
		return true
	case <-ctx.Done():
		return false
	}
}

// UnderWay is the note of a fault still going on when the run stopped
// waiting for it (an interrupt's budget ended first): a killed server
// not yet back, for one.
const UnderWay = "still under way when the run was interrupted: not over"

// OnCycle follows one measured cycle (runner.Config.OnCycle); next, when
// not nil, sees it after.
func (s *Schedule) OnCycle(next func(runner.CycleEvent)) func(runner.CycleEvent) {
	return func(ev runner.CycleEvent) {
		if !ev.Skipped {
			s.cycle(ev)
		}
		if next != nil {
			next(ev)
		}
	}
}

func (s *Schedule) cycle(ev runner.CycleEvent) {
	end := ev.Start.Add(ev.Latency).UnixNano()
	if ev.Err != nil {
		s.mu.Lock()
		if len(s.errs) < maxEvents {
			s.errs = append(s.errs, errorEvent{end, target.Classify(ev.Err)})
		}
		s.mu.Unlock()
		return
	}
	if i := s.stepOf(end); i >= 0 {
		s.ok[i].Add(1)
	}
	start := ev.Start.Add(ev.Lag).UnixNano() // when it began, behind a --rate schedule too
	for i := range s.fired {
		if at := s.fired[i].Load(); at != 0 && start >= at && s.firstOK[i].Load() == 0 && s.firstOK[i].CompareAndSwap(0, end) {
			s.log(fmt.Sprintf("fault at %.1f s (%s): a cycle begun after it succeeded %.2f s after it",
				float64(at-s.t0.Load())/1e9, s.specs[i].Name(), float64(end-at)/1e9))
		}
	}
}

// Connected counts a session a client opened.
func (s *Schedule) Connected() {
	now := time.Now().UnixNano()
	s.mu.Lock()
	if len(s.opened) < maxEvents {
		s.opened = append(s.opened, now)
	}
	s.mu.Unlock()
}

// stepOf is the step a time falls in, -1 outside the window.
func (s *Schedule) stepOf(ns int64) int {
	t0 := s.t0.Load()
	if t0 == 0 || ns < t0 {
		return -1
	}
	i := int((ns - t0) / int64(step))
	if i >= len(s.ok) {
		return -1
	}
	return i
}

// ConnectCounter is a target whose Connect calls Connected: the
// reconnects during an outage.
type ConnectCounter struct {
	target.Target
	S *Schedule
}

// Connect opens a session and counts it.
func (c ConnectCounter) Connect(ctx context.Context) (target.Conn, error) {
	conn, err := c.Target.Connect(ctx)
	if err == nil {
		c.S.Connected()
	}
	return conn, err
}
