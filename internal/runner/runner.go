package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
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
	Ramp       time.Duration // clients start evenly spread over this
	Warmup     time.Duration // excluded from the statistics
	Seed       uint64
	MaxTries   int           // attempts per op for retryable errors
	Progress   time.Duration // interval between ticks
	// Grace is how long in-flight ops may take to finish once the run
	// ends before they are cancelled.
	Grace time.Duration
	// OnTick receives each interval as it closes (from one goroutine).
	OnTick func(result.Interval)
	// OnPhase reports phase changes such as the end of the warm-up.
	OnPhase func(msg string)
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
	case c.Duration > 0 && c.Iterations > 0:
		return errors.New("--duration and --iterations both given: choose one")
	case c.Duration == 0 && c.Iterations == 0:
		return errors.New("neither --duration nor --iterations given: give one")
	case c.Ramp < 0:
		return fmt.Errorf("--ramp %s is negative: give 0 or more", c.Ramp)
	case c.Warmup < 0:
		return fmt.Errorf("--warmup %s is negative: give 0 or more", c.Warmup)
	case c.Warmup > 0 && c.Iterations > 0:
		return errors.New("--warmup with --iterations: the warm-up would use up iterations; use --duration with --warmup")
	case c.MaxTries < 1:
		return fmt.Errorf("--max-tries %d: give at least 1", c.MaxTries)
	case c.Progress <= 0:
		return fmt.Errorf("--progress %s: give a positive interval such as 10s", c.Progress)
	}
	return nil
}

// Outcome is what the runner measured; the caller adds configuration,
// versions and the invariant check to make a Result.
type Outcome struct {
	Started, Ended time.Time
	Measured       time.Duration
	Interrupted    bool
	Ops            []result.Op // workload ops, the cycle, then getting connections
	Intervals      []result.Interval
	CPU            CPUUsage // client CPU over the measured window
}

type run struct {
	cfg    Config
	conns  connect.Connector
	w      workload.Workload
	names  []string // recorded ops: the workload's, the cycle, the connection wait
	cycle  int      // index of the cycle in names
	wait   int      // index of the connection wait in names
	rec    *metrics.Recorder
	counts *counters

	measuring atomic.Bool  // past the warm-up
	measureAt atomic.Int64 // unix nanos when measuring began
	claimed   atomic.Int64 // cycles claimed, for Iterations
	stop      context.Context
	stopRun   context.CancelFunc
	ops       context.Context // cancelled when in-flight ops must end
	cancelOps context.CancelFunc
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
	r := &run{cfg: cfg, conns: conns, w: w}
	r.names = append(append([]string{}, w.OpNames()...), result.CycleOp, conns.WaitName())
	r.cycle, r.wait = len(r.names)-2, len(r.names)-1
	r.rec = metrics.NewRecorder(r.names)
	r.counts = newCounters(r.names)
	r.stop, r.stopRun = context.WithCancel(context.Background())
	r.ops, r.cancelOps = context.WithCancel(context.Background())
	defer r.stopRun()
	defer r.cancelOps()

	// Ctrl-C cancels in-flight ops at once.
	go func() {
		select {
		case <-ctx.Done():
			r.stopRun()
			r.cancelOps()
		case <-r.stop.Done():
		}
	}()

	out := &Outcome{Started: time.Now()}
	var cpu0 CPUUsage
	startMeasuring := func() {
		cpu0 = readCPU()
		r.measureAt.Store(time.Now().UnixNano())
		r.measuring.Store(true)
	}
	if cfg.Warmup == 0 {
		startMeasuring()
	}

	var wg sync.WaitGroup
	for i := 0; i < cfg.Clients; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			r.client(id)
		}(i)
	}
	clientsDone := make(chan struct{})
	go func() { wg.Wait(); close(clientsDone) }()

	ticker := time.NewTicker(cfg.Progress)
	defer ticker.Stop()
	var warmupEnd, durationEnd <-chan time.Time
	if cfg.Warmup > 0 {
		warmupEnd = time.After(cfg.Warmup)
	} else if cfg.Duration > 0 {
		durationEnd = time.After(cfg.Duration)
	}
	var graceEnd <-chan time.Time
	var windowEnd time.Time // when the duration ended or the run was interrupted
	stopC := r.stop.Done()
	stopping := func() {
		windowEnd = time.Now()
		r.stopRun()
		stopC, durationEnd, warmupEnd = nil, nil, nil
		graceEnd = time.After(cfg.Grace)
	}
	for done := false; !done; {
		select {
		case <-warmupEnd:
			warmupEnd = nil
			r.rec.Tick() // drop anything that raced the switch
			startMeasuring()
			if cfg.OnPhase != nil {
				cfg.OnPhase(fmt.Sprintf("warm-up of %s done; measuring", cfg.Warmup))
			}
			if cfg.Duration > 0 {
				durationEnd = time.After(cfg.Duration)
			}
		case <-durationEnd:
			if cfg.OnPhase != nil {
				cfg.OnPhase(fmt.Sprintf("duration reached: letting clients finish their current cycle (at most %s)", cfg.Grace))
			}
			stopping()
		case <-stopC: // interrupted, or all iterations claimed
			stopping()
		case <-graceEnd:
			r.cancelOps()
		case <-ticker.C:
			if r.measuring.Load() {
				r.tick(out)
			}
		case <-clientsDone:
			done = true
		}
	}
	out.Interrupted = ctx.Err() != nil
	if !r.measuring.Load() { // stopped during the warm-up
		startMeasuring()
	}
	out.Ended = time.Now()
	out.CPU = readCPU().Sub(cpu0)
	r.tick(out)
	// Rates are over the window in which ops started: it closes when the
	// duration ends (or the run is interrupted), not when the last op in
	// flight finishes; those ops count, as they started inside it.
	if windowEnd.IsZero() {
		windowEnd = out.Ended
	}
	out.Measured = windowEnd.Sub(time.Unix(0, r.measureAt.Load()))
	totals := r.rec.Total()
	for i, name := range r.names {
		h := totals[i]
		retries, errs := r.counts.total(i)
		kind := ""
		switch i {
		case r.cycle:
			kind = result.KindCycle
		case r.wait:
			kind = result.KindWait
		}
		out.Ops = append(out.Ops, result.Op{
			Name: name, Kind: kind, Clients: cfg.Clients, Retries: retries, Errors: errs,
			ErrorSamples: r.counts.samplesOf(i), Summary: h.Summary(), Hist: h,
		})
	}
	return out, nil
}

// tick closes an interval.
func (r *run) tick(out *Outcome) {
	hs := r.rec.Tick()
	iv := result.Interval{ElapsedS: time.Since(time.Unix(0, r.measureAt.Load())).Seconds()}
	iv.LengthS = iv.ElapsedS
	if n := len(out.Intervals); n > 0 {
		iv.LengthS -= out.Intervals[n-1].ElapsedS
	}
	for i, name := range r.names {
		retries, errs := r.counts.interval(i)
		enc, err := hs[i].Encode()
		if err != nil {
			continue // cannot happen for histograms the recorder made
		}
		iv.Ops = append(iv.Ops, result.IntervalOp{Name: name, Retries: retries, Errors: errs, Summary: hs[i].Summary(), Hist: enc})
	}
	out.Intervals = append(out.Intervals, iv)
	if r.cfg.OnTick != nil {
		r.cfg.OnTick(iv)
	}
}

// client runs one client's cycles until the run stops.
func (r *run) client(id int) {
	if r.cfg.Ramp > 0 && r.cfg.Clients > 1 {
		if workload.Sleep(r.stop, r.cfg.Ramp*time.Duration(id)/time.Duration(r.cfg.Clients)) != nil {
			return
		}
	}
	c := &client{run: r, id: id, rng: rand.New(rand.NewPCG(r.cfg.Seed, uint64(id))), conns: r.conns.Client()}
	defer c.conns.Close()
	cl := r.w.NewClient(id, c.rng)
	ops := cl.Ops()
	for r.stop.Err() == nil {
		if r.cfg.Iterations > 0 && r.claimed.Add(1) > r.cfg.Iterations {
			return
		}
		pause := cl.NextCycle()
		start := time.Now()
		if workload.Sleep(r.stop, pause) != nil {
			return
		}
		ok := true
		for i, op := range ops {
			if !c.attempt(i, op) {
				ok = false
				break
			}
		}
		if ok && r.counted(start) {
			r.rec.Record(r.cycle, id, time.Since(start))
		}
	}
}

// client is one client's state.
type client struct {
	*run
	id    int
	rng   *rand.Rand
	conns connect.Handle
	fails int // consecutive failures to get a connection
}

// attempt gets a connection and runs op on it until it succeeds, fails
// with an error that is not retried, or runs out of tries; it reports
// success. The op's latency includes the wait for the connection, as the
// client sees it; the wait is also recorded on its own.
func (c *client) attempt(opIdx int, op workload.Op) bool {
	start := time.Now()
	conn, waited, err := c.conns.Get(c.ops)
	if err != nil {
		if c.ops.Err() != nil { // the run is ending: not an error
			return false
		}
		if c.counted(start) {
			c.counts.fail(opIdx, target.Classify(err), err)
		}
		// The server refuses or is away (restarting, overloaded): back off
		// before this client's next try so it does not spin.
		c.fails++
		workload.Sleep(c.stop, min(backoff(c.fails, c.rng)*5, 2*time.Second))
		return false
	}
	c.fails = 0
	if waited > 0 && c.counted(start) {
		c.rec.Record(c.wait, c.id, waited)
	}
	for try := 1; ; try++ {
		err := op.Run(c.ops, conn)
		if err == nil {
			c.conns.Put(conn, false)
			if c.counted(start) {
				c.rec.Record(opIdx, c.id, time.Since(start))
			}
			return true
		}
		if c.ops.Err() != nil {
			c.conns.Put(conn, true)
			return false
		}
		class := target.Classify(err)
		if class.Retryable() && try < c.cfg.MaxTries && !conn.Broken() {
			if c.counted(start) {
				c.counts.retry(opIdx)
			}
			if workload.Sleep(c.ops, backoff(try, c.rng)) != nil {
				c.conns.Put(conn, true)
				return false
			}
			continue
		}
		if c.counted(start) {
			c.counts.fail(opIdx, class, err)
		}
		c.conns.Put(conn, breaksSession(class))
		return false
	}
}

// counted reports whether an op started at start falls in the measured
// window.
func (r *run) counted(start time.Time) bool {
	return r.measuring.Load() && !start.Before(time.Unix(0, r.measureAt.Load()))
}

// breaksSession: after these the session is replaced.
func breaksSession(c target.Class) bool {
	switch c {
	case target.ClassConnectionLost, target.ClassAdminShutdown, target.ClassTimeout, target.ClassConnectRefused:
		return true
	}
	return false
}

// backoff is capped exponential backoff with full jitter: a random wait
// in [0, min(1s, 10ms * 2^(try-1))].
func backoff(try int, rng *rand.Rand) time.Duration {
	limit := 10 * time.Millisecond << min(try-1, 10)
	limit = min(limit, time.Second)
	return time.Duration(rng.Int64N(int64(limit) + 1))
}
