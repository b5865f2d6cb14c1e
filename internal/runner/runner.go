package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Config is how a run is driven.
type Config struct {
	Clients    int
	Duration   time.Duration // the measured window; 0 when Iterations is set
	Iterations int64         // total cycles across all clients, exact
	PerClient  bool          // Iterations counts each client's cycles (pgbench -t)
	// Rate is the target cycles per second across all clients (0: as fast
	// as they go). Cycles start on one Poisson schedule the clients share,
	// as pgbench -R does; latency counts from the scheduled start and the
	// lag behind it is recorded.
	Rate float64
	// LatencyLimit counts cycles slower than it as late; with Rate, a
	// cycle already this late at its scheduled start is skipped.
	LatencyLimit time.Duration
	// AbortOnError stops a client at its first failed op that is not a
	// retryable error out of tries (pgbench's semantics); errors wrapping
	// workload.ErrAbortClient stop a client in any case.
	AbortOnError bool
	// OnCycle, when set, sees every measured cycle as it ends, from the
	// goroutine running the client (for per-transaction logs).
	OnCycle  func(CycleEvent)
	Ramp     time.Duration // clients start evenly spread over this
	Warmup   time.Duration // excluded from the statistics
	Seed     uint64
	MaxTries int           // attempts per op for retryable errors
	Progress time.Duration // interval between ticks
	// Grace is how long in-flight ops may take to finish once the window
	// ends before they are cancelled and counted unfinished (0: 30 s).
	Grace time.Duration
	// OnPhase reports phase changes such as the end of the warm-up.
	OnPhase func(msg string)
	// Observers watch the run as it goes (see Observer).
	Observers []Observer
	// NoSlowOps keeps no slowest runs (Outcome.SlowOps is empty), for a
	// caller that shows none: `txnbench pgbench` without --json.
	NoSlowOps bool
	// Clock keeps the window, the progress ticks and the stall check
	// (nil: RealClock); a test drives a window with a fake one.
	Clock Clock
	// Shard is this process's part of a run split across processes (set
	// by Shard.Split; zero: the whole run).
	Shard Shard
	// Reads, when set, hands out the connections of the workload's
	// read-only ops (workload.ReadOnlyOps): --read-from's standbys. The
	// other ops get theirs from the connector Run is given.
	Reads connect.Connector

	// workers forces the mode, for tests: n > 0 runs the clients on n
	// worker goroutines, -1 on a goroutine each (0: mux.go chooses).
	workers int
}

// Validate returns a usage error naming the fix.
func (c Config) Validate() error {
	switch {
	case c.Clients < 1:
		return fmt.Errorf("--clients %d: give at least 1", c.Clients)
	case c.Duration < 0:
		return fmt.Errorf("--duration %s is negative: give a positive duration such as 30s", c.Duration)
	case c.Iterations < 0:
		return fmt.Errorf("--iterations %d is negative: give a positive count", c.Iterations)
	case math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("--rate %g: give a finite number of transactions per second, or 0 for as fast as possible", c.Rate)
	case c.Rate > 1e9:
		return fmt.Errorf("--rate %g is more than one start per nanosecond: give at most 1e9, or 0 for as fast as possible", c.Rate)
	case c.Rate < 0:
		return fmt.Errorf("--rate %g is negative: give transactions per second, or 0 for as fast as possible", c.Rate)
	case c.LatencyLimit < 0:
		return fmt.Errorf("--latency-limit %s is negative: give a positive duration", c.LatencyLimit)
	case c.Duration > 0 && c.Iterations > 0:
		return errors.New("--duration and --iterations both given: choose one")
	case c.Duration == 0 && c.Iterations == 0:
		return errors.New("neither --duration nor --iterations given: give one")
	case c.Ramp < 0:
		return fmt.Errorf("--ramp %s is negative: give 0 or more", c.Ramp)
	case c.Warmup < 0:
		return fmt.Errorf("--warmup %s is negative: give 0 or more", c.Warmup)
	case c.Duration > MaxSpan || c.Warmup > MaxSpan || c.Ramp > MaxSpan || c.Grace > MaxSpan:
		return fmt.Errorf("%s: give at most %s (a year)", overSpan(c), MaxSpan)
	case c.Duration > 0 && c.Ramp > c.Warmup+c.Duration:
		return fmt.Errorf("--ramp %s is longer than the run (--warmup %s + --duration %s): the last clients would start after it ends; give at most %s", c.Ramp, c.Warmup, c.Duration, c.Warmup+c.Duration)
	case c.Warmup > 0 && c.Iterations > 0:
		return errors.New("--warmup with --iterations: the warm-up would use up iterations; use --duration with --warmup")
	case c.MaxTries < 1:
		return fmt.Errorf("--max-tries %d: give at least 1", c.MaxTries)
	case c.Progress < 10*time.Millisecond:
		return fmt.Errorf("--progress %s: give at least 10ms, e.g. 10s", c.Progress)
	case c.Grace < 0:
		return fmt.Errorf("--grace %s is negative: give 0 for the default or a positive duration", c.Grace)
	}
	return nil
}

// MaxSpan bounds --duration, --warmup, --ramp and --grace: a year each,
// so that their sum, the run's deadline, cannot overflow (a duration
// holds at most 292 years).
const MaxSpan = 365 * 24 * time.Hour

// overSpan names the first of c's spans longer than MaxSpan.
func overSpan(c Config) string {
	for _, f := range []struct {
		flag string
		d    time.Duration
	}{{"--duration", c.Duration}, {"--warmup", c.Warmup}, {"--ramp", c.Ramp}, {"--grace", c.Grace}} {
		if f.d > MaxSpan {
			return fmt.Sprintf("%s %s", f.flag, f.d)
		}
	}
	return ""
}

// CycleEvent is one cycle as OnCycle sees it.
type CycleEvent struct {
	Client  int
	Op      int       // the chosen op's index with a Chooser, else -1
	Start   time.Time // the scheduled start with a rate, else the actual one
	Latency time.Duration
	Lag     time.Duration // how late it started against the schedule
	Retries int
	Skipped bool  // never ran: too late at its scheduled start
	Err     error // why it failed; nil when it succeeded or was skipped
}

// Outcome is what the runner measured; the caller adds configuration,
// versions and the invariant check to make a Result.
//
// The measured window runs from the start of measuring to the end of the
// duration (or the interrupt, or the last cycle with Iterations). An op
// started in it is completed inside it (in Count, the rates and the
// intervals, the last of which ends with the window), completed in the
// grace period after it (Op.AfterWindow: its latency is in the statistics,
// not in Count), failed (Op.Errors) or unfinished (Op.Unfinished).
type Outcome struct {
	Started, Ended time.Time
	Measured       time.Duration // the window's length
	Stalled        *result.Stall // no op completed in the window's last result.StallAfter
	Interrupted    bool
	Aborted        int         // clients stopped by an error that ends a client
	Ops            []result.Op // workload ops, the cycle, getting connections, the lag with a rate
	Intervals      []result.Interval
	CPU            CPUUsage // client CPU over the measured window
	// SlowOps are the slowest ops, without their waits.
	SlowOps []result.SlowOp
}

type run struct {
	cfg     Config
	conns   connect.Connector
	w       workload.Workload
	names   []string      // recorded ops: the workload's, the cycle, the connection wait, the lag, the steps
	cycle   int           // index of the cycle in names
	wait    int           // index of the connection wait in names
	lag     int           // index of the lag in names, -1 without a rate
	steps   int           // index of the workload's first step in names
	kinds   []result.Kind // of the steps
	rec     *metrics.Recorder
	counts  *counters
	sched   *schedule // nil without a rate
	slow    *slowest
	aborted atomic.Int64

	measuring atomic.Bool  // past the warm-up
	baselined atomic.Bool  // the observers' window began: the server counts from here
	measureAt atomic.Int64 // unix nanos when measuring began
	cpu0      CPUUsage     // the client's CPU then (ticking goroutine's)
	claimed   atomic.Int64 // cycles claimed, for Iterations
	stop      context.Context
	stopRun   context.CancelFunc
	// ramping ends the clients' waits for their ramp time: at the stop, or
	// once every iteration is claimed (a client not started has none left).
	ramping   context.Context
	endRamp   context.CancelFunc
	ops       context.Context // cancelled when in-flight ops must end
	cancelOps context.CancelFunc

	busy []clientState // per client: in an op since, last op done
}

// Run drives w with connections from conns until the duration or
// iterations are done, or ctx is cancelled (Ctrl-C): then in-flight ops are
// cancelled and what was measured so far is returned with Interrupted set.
func Run(ctx context.Context, cfg Config, conns connect.Connector, w workload.Workload) (*Outcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Grace == 0 {
		cfg.Grace = 30 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	clock := cfg.Clock
	r, workers := newRun(cfg, conns, w)
	r.stop, r.stopRun = context.WithCancel(context.Background())
	r.ramping, r.endRamp = context.WithCancel(r.stop)
	defer r.endRamp()
	r.ops, r.cancelOps = context.WithCancel(context.Background())
	defer r.stopRun()
	defer r.cancelOps()

	// Ctrl-C cancels in-flight ops at once, in the grace period too.
	ran := make(chan struct{})
	defer close(ran)
	go func() {
		select {
		case <-ctx.Done():
			r.stopRun()
			r.cancelOps()
		case <-ran:
		}
	}()

	out := &Outcome{Started: time.Now()}
	win := &window{r: r, out: out, clock: clock}
	if cfg.Warmup == 0 {
		win.startMeasuring()
	}
	if cfg.Rate > 0 {
		// after measuring starts, so no scheduled start falls before it
		r.sched = newSchedule(cfg.Rate, cfg.Shard.scheduleSeed(cfg.Seed))
	}
	clientsDone := r.startClients(ctx, workers)
	win.run(clientsDone)
	for _, o := range cfg.Observers {
		o.Stop()
	}
	out.Interrupted = ctx.Err() != nil
	out.Aborted = int(r.aborted.Load())
	out.Ended = time.Now()
	out.CPU = readCPU().Sub(win.cpu0)
	out.Measured = win.end.Sub(time.Unix(0, r.measureAt.Load()))
	after, totals := r.rec.Final() // after: completed in the grace period, in the totals and in no interval
	out.SlowOps = r.slow.result(r.names[:r.steps], totals)
	out.Ops = r.results(totals, after, win.inWindow)
	return out, nil
}

// window is the measured window of a run as its phases pass: the warm-up,
// the duration, the grace period after it, the progress ticks.
type window struct {
	r     *run
	out   *Outcome
	clock Clock
	cpu0  CPUUsage // the client's CPU when measuring began

	tickC                            <-chan time.Time
	warmupEnd, durationEnd, graceEnd <-chan time.Time
	stopC                            <-chan struct{}
	// due is when the duration will end; a tick due just before it is
	// left to the window's close, so the last interval is not a sliver
	// that repeats the previous label.
	due time.Time
	// end is when the duration ended, the run was interrupted or the
	// last cycle ended; inWindow each op's retries and errors then.
	end      time.Time
	inWindow []opCounts
}

// startMeasuring opens the window: the observers start, and what
// completes from now on is measured.
func (w *window) startMeasuring() {
	r := w.r
	r.baselined.Store(true)
	for _, o := range r.cfg.Observers {
		o.Start()
	}
	w.cpu0 = readCPU()
	r.cpu0 = w.cpu0
	r.measureAt.Store(w.clock.Now().UnixNano())
	r.measuring.Store(true)
}

// close ends the measured window: its last interval ends with it, and
// what completes later is not in any interval.
func (w *window) close() {
	r := w.r
	w.end = w.clock.Now()
	if !r.measuring.Load() { // stopped during the warm-up: an empty window
		w.startMeasuring()
	}
	for _, o := range r.cfg.Observers {
		o.WindowEnd()
	}
	r.tick(w.out, w.end)
	w.inWindow = r.counts.snapshot()
	w.out.Stalled = r.stall(w.end)
	w.tickC = nil
}

// stopping closes the window and starts the grace period.
func (w *window) stopping() {
	w.r.stopRun() // first: no transaction begins once the window is closed
	w.close()
	w.stopC, w.durationEnd, w.warmupEnd = nil, nil, nil
	w.graceEnd = w.clock.After(w.r.cfg.Grace)
}

// run passes the phases until the clients are done, ticking the
// progress, and closes the window if the last cycle, not the duration or
// an interrupt, ended it.
func (w *window) run(clientsDone <-chan struct{}) {
	r, cfg, clock := w.r, w.r.cfg, w.clock
	tickC, stopTicker := clock.NewTicker(cfg.Progress)
	defer stopTicker()
	w.tickC = tickC
	if cfg.Warmup > 0 {
		w.warmupEnd = clock.After(cfg.Warmup)
	} else if cfg.Duration > 0 {
		w.durationEnd, w.due = clock.After(cfg.Duration), clock.Now().Add(cfg.Duration)
	}
	w.stopC = r.stop.Done()
	for done := false; !done; {
		select {
		case <-w.warmupEnd:
			w.warmupEnd = nil
			r.rec.Tick() // drop anything that raced the switch
			w.startMeasuring()
			if cfg.OnPhase != nil {
				cfg.OnPhase(fmt.Sprintf("warm-up of %s done; measuring", cfg.Warmup))
			}
			if cfg.Duration > 0 {
				w.durationEnd, w.due = clock.After(cfg.Duration), clock.Now().Add(cfg.Duration)
			}
		case <-w.durationEnd:
			if cfg.OnPhase != nil {
				cfg.OnPhase(fmt.Sprintf("duration reached: letting the ops running finish (at most %s); no new one begins", cfg.Grace))
			}
			w.stopping()
		case <-w.stopC: // interrupted, or all iterations claimed
			w.stopping()
		case <-w.graceEnd:
			w.graceEnd = nil
			n := r.running()
			r.cancelOps()
			if n > 0 && cfg.OnPhase != nil {
				cfg.OnPhase(fmt.Sprintf("grace period of %s over: cancelled %d ops still running (counted unfinished)", cfg.Grace, n))
			}
		case <-w.tickC:
			if !w.due.IsZero() && w.due.Sub(clock.Now()) < cfg.Progress/10 {
				continue // the window's close ends this interval
			}
			if r.measuring.Load() {
				r.tick(w.out, clock.Now())
			}
		case <-clientsDone:
			done = true
		}
	}
	if w.end.IsZero() { // the iterations are done
		w.close()
	}
}

// rowNames are the ops a run of w with cfg records before the workload's
// steps (see addSteps): w's, the cycle, the wait for a connection (wait,
// the Connector's WaitName) and, with a rate, the lag.
func rowNames(cfg Config, w workload.Workload, wait string) []string {
	names := append(append([]string{}, w.OpNames()...), result.CycleOp, wait)
	if cfg.Rate > 0 {
		names = append(names, result.LagOp)
	}
	return names
}

// OpNames are the ops a run of w with cfg records, its connections'
// wait named wait (connect.Options.WaitName): those a goal on an op may
// name. A workload whose steps are known only once it is initialised
// (a script's statements) has them named after its ops (OP/N ...), which
// are not listed.
func OpNames(cfg Config, w workload.Workload, wait string) []string {
	names := rowNames(cfg, w, wait)
	if s, ok := w.(workload.Stepper); ok {
		for _, st := range s.Steps() {
			names = append(names, st.Name)
		}
	}
	return names
}

// newRun is a run of w: its recorded ops (see run.names), their recorder
// and counters, and the workers of the worker mode (0: a goroutine per
// client).
func newRun(cfg Config, conns connect.Connector, w workload.Workload) (r *run, workers int) {
	r = &run{cfg: cfg, conns: conns, w: w}
	r.names = rowNames(cfg, w, conns.WaitName())
	r.cycle, r.wait, r.lag = len(w.OpNames()), len(w.OpNames())+1, -1
	if cfg.Rate > 0 {
		r.lag = len(r.names) - 1
	}
	r.addSteps()
	r.rec = metrics.NewRecorder(r.names)
	for i := range r.names {
		if r.kind(i) == result.KindStatement {
			r.rec.TotalsOnly(i) // a script's commands: many, in no interval (see tick)
		}
	}
	r.counts = newCounters(r.names)
	r.busy = make([]clientState, cfg.Clients)
	workers = r.workers()
	if !cfg.NoSlowOps {
		r.slow = newSlowest(r.steps, cmp.Or(workers, cfg.Clients)) // a shard per client, or per worker
	}
	return r, workers
}

// startClients starts the clients, a goroutine each or on workers; the
// channel closes when they have all ended.
func (r *run) startClients(ctx context.Context, workers int) <-chan struct{} {
	var wg sync.WaitGroup
	if workers > 0 {
		startMux(ctx, r, workers, &wg)
	} else {
		for i := 0; i < r.cfg.Clients && ctx.Err() == nil; i++ { // Ctrl-C stops the start-up too
			wg.Add(1)
			go func(id int) {
				defer wg.Done()
				r.client(id)
			}(i)
		}
	}
	clientsDone := make(chan struct{})
	go func() { wg.Wait(); close(clientsDone) }()
	return clientsDone
}

// results are the recorded ops' totals: what completed in the window, and
// beside it what completed after it (after), failed or never finished.
func (r *run) results(totals []*metrics.Hist, after []int64, inWindow []opCounts) []result.Op {
	var ops []result.Op
	for i, name := range r.names {
		h := totals[i]
		retries, errs := r.counts.total(i)
		afterRetries, afterErrs := inWindow[i].after(retries, errs)
		retries, errs = inWindow[i].retries, inWindow[i].errors
		sum := h.Summary()
		afterWindow := int64(0)
		if after != nil { // nil: the run so far (partial)
			afterWindow = after[i]
		}
		sum.Count -= afterWindow
		ops = append(ops, result.Op{
			Name: name, Kind: r.kind(i), Clients: r.cfg.Clients, Retries: retries, Errors: errs,
			Late: r.counts.late[i].Load(), Skipped: r.counts.skipped[i].Load(),
			ErrorSamples: r.counts.samplesOf(i), Summary: sum, Hist: h, AfterWindow: afterWindow,
			AfterWindowRetries: afterRetries, AfterWindowErrors: afterErrs,
			BeforeWindow:    r.counts.before[i].Load(),
			Unfinished:      r.counts.unfinished[i].Load(),
			UnfinishedMaxMS: float64(r.counts.unfinishedMax[i].Load()) / 1e6,
		})
	}
	return ops
}

// kind is the kind of op i: the workload's ops are transactions, its
// steps of their own kinds.
func (r *run) kind(i int) result.Kind {
	if i >= r.steps {
		return r.kinds[i-r.steps]
	}
	switch i {
	case r.cycle:
		return result.KindCycle
	case r.wait:
		return result.KindWait
	case r.lag:
		return result.KindLag
	}
	return result.KindTxn
}

// tick closes an interval at now.
func (r *run) tick(out *Outcome, now time.Time) {
	hs := r.rec.Tick()
	iv := result.Interval{ElapsedS: now.Sub(time.Unix(0, r.measureAt.Load())).Seconds()}
	iv.LengthS = iv.ElapsedS
	if n := len(out.Intervals); n > 0 {
		iv.LengthS -= out.Intervals[n-1].ElapsedS
	}
	for i, name := range r.names {
		if r.kind(i) == result.KindStatement {
			continue // a script's commands: many, in the totals only
		}
		retries, errs, classes, skipped := r.counts.interval(i)
		iv.Ops = append(iv.Ops, result.IntervalOp{Name: name, Kind: r.kind(i), Retries: retries, Errors: errs, ErrorClasses: classes,
			Skipped: skipped, Summary: hs[i].Summary(), Hist: hs[i]})
	}
	out.Intervals = append(out.Intervals, iv)
	for _, o := range r.cfg.Observers {
		o.Tick(iv)
	}
	for _, h := range hs {
		h.Compact() // kept for the result (a script's commands' are not, and their counts go to the next tick's): cannot fail
	}
	// after Compact: the intervals' histograms are at rest, and another
	// goroutine may read (encode) them
	if ps := partialObservers(r.cfg.Observers); len(ps) > 0 {
		p := r.partial(out, now)
		for _, o := range ps {
			o.Partial(p)
		}
	}
}

// client runs one client's cycles until the run stops, on a goroutine of
// its own.
func (r *run) client(id int) {
	if r.cfg.Ramp > 0 && r.cfg.Clients > 1 {
		if Sleep(r.ramping, r.rampDelay(id)) != nil {
			return
		}
	}
	c := &client{run: r, id: id, shard: id}
	c.init()
	defer c.closeConns()
	for c.next(c.now()) {
		if r.sched != nil || c.cyc.pause > 0 {
			c.ended = time.Time{} // the client waits: its clock must be read again
		}
		if r.sched != nil {
			if c.timer.Sleep(r.stop, time.Until(c.cyc.start)) != nil {
				return
			}
			c.started()
		}
		if c.timer.Sleep(r.stop, c.cyc.pause) != nil {
			return
		}
		if !c.runCycle() {
			return
		}
	}
}

// rampDelay is when client id starts after the run's start.
func (r *run) rampDelay(id int) time.Duration {
	return r.cfg.Ramp * time.Duration(id) / time.Duration(r.cfg.Clients)
}

// init makes the client's connection handle and workload client.
func (c *client) init() {
	gid := c.cfg.Shard.ClientID(c.id) // the stream of the run's client gid, whichever shard runs it
	c.rng = rand.New(rand.NewPCG(c.cfg.Seed, uint64(gid)))
	c.conns = c.run.conns.Client()
	if c.cfg.Reads != nil {
		c.reads = c.cfg.Reads.Client()
		c.readOnly = workload.ReadOnlyIndexes(c.w)
	}
	c.cl = c.w.NewClient(gid, c.rng)
	if sc, ok := c.cl.(workload.StepClient); ok {
		sc.RecordSteps(c)
	}
	c.opList = c.cl.Ops()
	c.chooser, _ = c.cl.(workload.Chooser)
}

// closeConns releases the client's connections.
func (c *client) closeConns() {
	c.conns.Close()
	if c.reads != nil {
		c.reads.Close()
	}
}

// handle is where op opIdx gets its connection: the reads' handle for a
// read-only op with Config.Reads, else the client's.
func (c *client) handle(opIdx int) connect.Handle {
	if c.reads != nil && opIdx < len(c.readOnly) && c.readOnly[opIdx] {
		return c.reads
	}
	return c.conns
}

// cycleState is the client's current cycle.
type cycleState struct {
	chosen int           // the chosen op with a Chooser, else -1
	pause  time.Duration // before its ops
	start  time.Time     // the scheduled start with a rate, else when it began
	lag    time.Duration // how late it started against the schedule
	// as its ops run
	next  int   // the next op without a Chooser
	ran   bool  // one of its ops began
	tries int   // retries made
	err   error // the last op's error
}

// next begins the client's next cycle at now: it claims the cycle, chooses
// its op and pause and, with a rate, takes its scheduled start (which the
// caller waits for, then calls started). false: the client's cycles are over.
func (c *client) next(now time.Time) bool {
	if !c.more() {
		return false
	}
	cy := &c.cyc
	cy.chosen = -1
	if c.chooser != nil {
		cy.chosen = c.chooser.Choose()
	}
	cy.pause = c.cl.NextCycle()
	cy.start, cy.lag = now, 0
	if c.sched != nil {
		var ok bool
		if cy.start, ok = c.scheduled(cy.chosen); !ok {
			return false
		}
	}
	return true
}

// started takes the lag of a scheduled start that has come; endCycle
// records it with the cycle, so that a cycle the window's end cut off
// before its ops began counts no lag either (the lag row's count is the
// cycles').
func (c *client) started() {
	c.cyc.lag = time.Since(c.cyc.start)
}

// runCycle runs the cycle's ops, after its pause, and records it; false when
// the client ends (the run is ending, or an error ends the client).
func (c *client) runCycle() bool {
	c.beginCycle()
	for c.runOp() {
	}
	return c.endCycle()
}

// beginCycle marks the start of the cycle's ops.
func (c *client) beginCycle() {
	c.busy[c.id].cycle.Store(c.cyc.start.UnixNano())
	c.cyc.next, c.cyc.ran, c.cyc.tries, c.cyc.err = 0, false, 0, nil
}

// runOp runs the cycle's next op, getting a connection for it: false when
// the cycle's ops are over.
func (c *client) runOp() bool {
	cy := &c.cyc
	var t int
	if cy.chosen >= 0 {
		// the cycle's one transaction: from the (scheduled) start, after
		// the cycle's pause (a TPC-C terminal's keying and think time)
		t, cy.err = c.attempt(cy.chosen, c.opList[cy.chosen], cy.start, cy.start.Add(cy.pause))
		cy.tries += t
		return false
	}
	if cy.next == len(c.opList) {
		return false
	}
	i := cy.next
	cy.next++
	t, cy.err = c.attempt(i, c.opList[i], cy.start, c.since()) // after the pause and the ops before it
	cy.tries += t
	return cy.err == nil && cy.next < len(c.opList)
}

// endCycle records the cycle whose ops are over; false when the client
// ends (the run is ending, or an error ends the client).
func (c *client) endCycle() bool {
	r, id, cy := c.run, c.id, &c.cyc
	start, chosen, tries, err := cy.start, cy.chosen, cy.tries, cy.err
	if err == errRunEnding || err == errNotBegun {
		c.flush()                       // the ops that completed
		if r.counted(start) && cy.ran { // a cycle none of whose ops began is no cycle
			r.counts.unfinish(r.cycle, time.Since(start))
		}
		return false
	}
	latency := c.now().Sub(start)
	if r.counted(start) {
		r.slow.endCycle(c.shard, &c.slowCyc, id, r.cycle, start, latency, err)
		if r.lag >= 0 {
			c.pending = append(c.pending, metrics.Sample{Op: r.lag, D: cy.lag})
		}
		if err == nil || errors.Is(err, workload.ErrAbortAfter) {
			c.pending = append(c.pending, metrics.Sample{Op: r.cycle, D: latency})
			if r.cfg.LatencyLimit > 0 && latency > r.cfg.LatencyLimit {
				r.counts.late[r.cycle].Add(1)
				if chosen >= 0 {
					r.counts.late[chosen].Add(1)
				}
			}
		}
		if r.cfg.OnCycle != nil {
			r.cfg.OnCycle(CycleEvent{Client: id, Op: chosen, Start: start, Latency: latency, Lag: cy.lag, Retries: tries, Err: err})
		}
	}
	c.flush()
	if err != nil && r.abortsClient(err) {
		r.aborted.Add(1)
		return false
	}
	return true
}

// more claims the client's next cycle: false when the run is over.
func (c *client) more() bool {
	if c.stop.Err() != nil {
		return false
	}
	switch {
	case c.cfg.Iterations == 0:
		return true
	case c.cfg.PerClient:
		c.done++
		return c.done <= c.cfg.Iterations
	}
	n := c.claimed.Add(1)
	if n >= c.cfg.Iterations {
		c.endRamp()
	}
	return n <= c.cfg.Iterations
}

// scheduled takes the client's next start from the shared schedule. With a
// latency limit, starts already later than the limit are skipped (and
// count as cycles, as pgbench counts them). ok is false when the client's
// cycles ran out.
func (c *client) scheduled(chosen int) (start time.Time, ok bool) {
	for {
		start = c.sched.next()
		lim := c.cfg.LatencyLimit
		if lim == 0 || time.Since(start) <= lim {
			return start, true
		}
		if c.counted(start) {
			c.counts.skipped[c.cycle].Add(1)
			if chosen >= 0 {
				c.counts.skipped[chosen].Add(1)
			}
			if c.cfg.OnCycle != nil {
				c.cfg.OnCycle(CycleEvent{Client: c.id, Op: chosen, Start: start, Skipped: true})
			}
		}
		if !c.more() {
			return start, false
		}
	}
}

// abortsClient reports whether a cycle's final error ends the client.
func (r *run) abortsClient(err error) bool {
	if errors.Is(err, workload.ErrAbortClient) {
		return true
	}
	return r.cfg.AbortOnError && !target.Classify(err).Retryable()
}

// client is one client's state.
type client struct {
	*run
	id    int
	shard int // its shard of the slowest runs: its own, or its worker's
	rng   *rand.Rand
	conns connect.Handle
	// reads is the handle of its read-only ops with Config.Reads (nil
	// otherwise); readOnly says which ops those are, by index.
	reads    connect.Handle
	readOnly []bool
	// fails counts consecutive failures of class failClass: to get a
	// connection, or of ops with an error retrying does not cure. The client
	// backs off on them; a success resets them.
	fails     int
	failClass errclass.Class
	done      int64 // cycles claimed, with PerClient
	// pending are the cycle's op latencies, recorded with the cycle's
	// own (metrics.Recorder.RecordTogether) so an interval never splits them.
	pending []metrics.Sample
	// ended is when the client's last op completed, while the client has
	// done nothing since but its bookkeeping (zero otherwise): the end of
	// its cycle and the start of its next, so that an op costs one clock
	// read (issue 31), as pgbench reuses one reading of the clock from a
	// transaction's end to the next one's start.
	ended time.Time

	timer workload.Timer // for the pauses

	cl        workload.Client
	opList    []workload.Op
	chooser   workload.Chooser // nil unless the workload client is one
	cyc       cycleState
	slowCyc   slowCycle
	muxClient // its state in the worker mode (mux.go)
}

// now is ended when set, else the time now.
func (c *client) now() time.Time {
	if !c.ended.IsZero() {
		return c.ended
	}
	return time.Now()
}

// flush records the cycle's pending latencies together.
func (c *client) flush() {
	if len(c.pending) > 0 {
		c.rec.RecordTogether(c.id, c.pending)
		c.pending = c.pending[:0]
	}
}

// errRunEnding reports an op cut short because the run is ending: not an
// error; counted unfinished.
var errRunEnding = errors.New("the run is ending")

// errNotBegun reports an op that got its connection after the window
// closed: it does not begin (no new transaction begins after the window),
// and is in no count.
var errNotBegun = errors.New("the window closed before the op began")

// attempt gets a connection and runs op on it until it succeeds, fails
// with an error that is not retried, or runs out of tries; it returns the
// retries it made and the final error (nil on success). The op's latency
// counts from from and includes the wait for the connection, as the
// client sees it; the wait is also recorded on its own. Whether it counts
// at all is decided by the cycle's start, so a cycle's ops count together.
func (c *client) attempt(opIdx int, op workload.Op, start, from time.Time) (retries int, err error) {
	getStart := c.since() // in the worker mode, when the client became ready
	c.ended = time.Time{} // set again when the op completes
	st := &c.busy[c.id]
	st.since.Store(getStart.UnixNano())
	defer func() {
		st.since.Store(0)
		switch {
		case err == nil:
			st.done.Store(c.ended.UnixNano())
		case err == errRunEnding && c.counted(start):
			c.counts.unfinish(opIdx, time.Since(from))
		}
	}()
	h := c.handle(opIdx)
	began := c.cyc.ran
	c.cyc.ran = true
	conn, waited, err := h.Get(c.ops)
	waited = c.took(waited)
	if err != nil {
		if c.ops.Err() != nil {
			return 0, errRunEnding
		}
		if c.counted(start) {
			c.counts.fail(opIdx, target.Classify(err), err)
		}
		// The server refuses or is away (restarting, overloaded): back off
		// before this client's next try so it does not spin.
		c.failed(target.Classify(err))
		c.backOff(workload.ReconnectBackoff(c.fails, c.rng))
		return 0, err
	}
	if c.stop.Err() != nil {
		// The window closed while the op waited for its turn: ops already
		// running finish, none begins. The server's counts and the
		// clients' then cover the same transactions.
		h.Put(conn, false)
		c.cyc.ran = began
		return 0, errNotBegun
	}
	if waited > 0 && c.counted(getStart) {
		c.rec.Record(c.wait, c.id, waited)
	}
	for try := 1; ; try++ {
		err := op.Run(c.ops, conn)
		if err == nil || errors.Is(err, workload.ErrAbortAfter) {
			c.ended = time.Now() // the op's one clock read
			h.Put(conn, err != nil)
			c.fails = 0
			if c.counted(start) {
				lat := c.ended.Sub(from)
				c.pending = append(c.pending, metrics.Sample{Op: opIdx, D: lat}) // with the cycle's, by flush
				c.slow.op(c.shard, &c.slowCyc, c.id, opIdx, from, lat, conn)
			} else if c.baselined.Load() {
				c.counts.before[opIdx].Add(1) // the server counts it
			}
			return try - 1, err
		}
		if c.ops.Err() != nil {
			h.Put(conn, true)
			return try - 1, errRunEnding
		}
		class := target.Classify(err)
		if class.Retryable() && try < c.cfg.MaxTries && !conn.Broken() {
			if c.counted(start) {
				c.counts.retry(opIdx)
			}
			if Sleep(c.ops, workload.Backoff(try, c.rng)) != nil {
				h.Put(conn, true)
				return try, errRunEnding
			}
			continue
		}
		if c.counted(start) {
			c.counts.fail(opIdx, class, err)
		}
		h.Put(conn, breaksSession(class))
		if !class.Retryable() {
			// The same error again and again (a read-only or full disk, a
			// missing table): back off so a broken server is not hammered.
			if c.failed(class); c.fails >= repeatedFailures {
				c.backOff(workload.Backoff(c.fails-repeatedFailures+1, c.rng))
			}
		}
		return try - 1, err
	}
}

// repeatedFailures is how many failures of the same class in a row make a
// client back off before its next op.
const repeatedFailures = 3

// failed counts a failure of class in a row with the client's earlier
// failures of the same class.
func (c *client) failed(class errclass.Class) {
	if class != c.failClass {
		c.fails, c.failClass = 0, class
	}
	c.fails++
}

// clientState is what the window's end reads of a client: since when it
// has been in an op (0: it is not) and when its last op completed, in unix
// nanoseconds. Padded so that clients do not share a cache line.
type clientState struct {
	since, done atomic.Int64
	cycle       atomic.Int64 // when its current cycle started, for its steps
	_           [104]byte
}

// running is how many clients are in an op.
func (r *run) running() int {
	n := 0
	for i := range r.busy {
		if r.busy[i].since.Load() != 0 {
			n++
		}
	}
	return n
}

// stall reports a window ending at end in which no op completed for
// result.StallAfter or more while clients were in one, or nil.
func (r *run) stall(end time.Time) *result.Stall {
	last := r.measureAt.Load()
	for i := range r.busy {
		last = max(last, r.busy[i].done.Load())
	}
	n := r.running()
	if n == 0 || end.Sub(time.Unix(0, last)) < result.StallAfter {
		return nil
	}
	return &result.Stall{Clients: n, SinceS: time.Duration(last - r.measureAt.Load()).Seconds()}
}

// counted reports whether an op started at start falls in the measured
// window.
func (r *run) counted(start time.Time) bool {
	return r.countedAt(start.UnixNano())
}

// countedAt is counted for a start in unix nanoseconds.
func (r *run) countedAt(ns int64) bool {
	return r.measuring.Load() && ns >= r.measureAt.Load()
}

// breaksSession: after these the session is replaced.
func breaksSession(c errclass.Class) bool {
	switch c {
	case errclass.ConnectionLost, errclass.AdminShutdown, errclass.Timeout, errclass.ConnectRefused:
		return true
	}
	return false
}
