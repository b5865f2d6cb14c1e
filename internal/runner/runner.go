package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

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
	Ops            []result.Op // workload ops, then the cycle
	Intervals      []result.Interval
	CPU            CPUUsage // client CPU over the measured window
}

// connectOp is the name errors of (re)connecting are counted under.
const connectOp = "connect"

type run struct {
	cfg    Config
	tgt    target.Target
	w      workload.Workload
	names  []string // recorded ops: the workload's, then the cycle
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

// Run drives w against tgt until the duration or iterations are done, or
// ctx is cancelled (Ctrl-C): then in-flight ops are cancelled and what was
// measured so far is returned with Interrupted set.
func Run(ctx context.Context, cfg Config, tgt target.Target, w workload.Workload) (*Outcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Grace == 0 {
		cfg.Grace = 30 * time.Second
	}
	r := &run{cfg: cfg, tgt: tgt, w: w}
	r.names = append(append([]string{}, w.OpNames()...), result.CycleOp)
	r.rec = metrics.NewRecorder(r.names)
	r.counts = newCounters(append(append([]string{}, r.names...), connectOp))
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
	stopC := r.stop.Done()
	stopping := func() {
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
	out.Ended = time.Now()
	out.Interrupted = ctx.Err() != nil
	if !r.measuring.Load() { // stopped during the warm-up
		startMeasuring()
	}
	out.CPU = readCPU().Sub(cpu0)
	r.tick(out)
	out.Measured = out.Ended.Sub(time.Unix(0, r.measureAt.Load()))
	totals := r.rec.Total()
	for i, name := range r.names {
		h := totals[i]
		retries, errs := r.counts.total(i)
		out.Ops = append(out.Ops, result.Op{
			Name: name, Clients: cfg.Clients, Retries: retries, Errors: errs,
			ErrorSamples: r.counts.samplesOf(i), Summary: h.Summary(), Hist: h,
		})
	}
	if _, errs := r.counts.total(len(r.names)); len(errs) > 0 {
		out.Ops = append(out.Ops, result.Op{Name: connectOp, Clients: cfg.Clients, Errors: errs,
			ErrorSamples: r.counts.samplesOf(len(r.names)), Hist: metrics.NewHist()})
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
	cycle := len(r.names) - 1
	if r.cfg.Ramp > 0 && r.cfg.Clients > 1 {
		if workload.Sleep(r.stop, r.cfg.Ramp*time.Duration(id)/time.Duration(r.cfg.Clients)) != nil {
			return
		}
	}
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(id)))
	cl := r.w.NewClient(id, rng)
	ops := cl.Ops()
	var conn target.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
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
			if conn == nil {
				if conn = r.connect(id, rng); conn == nil {
					return
				}
			}
			if !r.attempt(id, i, op, &conn, rng) {
				ok = false
				break
			}
		}
		if ok && r.measuring.Load() && !start.Before(time.Unix(0, r.measureAt.Load())) {
			r.rec.Record(cycle, id, time.Since(start))
		}
	}
}

// attempt runs op until it succeeds, fails with an error that is not
// retried, or runs out of tries; it reports success. A broken session is
// closed and *conn set to nil so the next op reconnects.
func (r *run) attempt(id, opIdx int, op workload.Op, conn *target.Conn, rng *rand.Rand) bool {
	start := time.Now()
	for try := 1; ; try++ {
		err := op.Run(r.ops, *conn)
		if err == nil {
			if r.counted(start) {
				r.rec.Record(opIdx, id, time.Since(start))
			}
			return true
		}
		if r.ops.Err() != nil { // the run is ending: not an error
			return false
		}
		class := target.Classify(err)
		if class.Retryable() && try < r.cfg.MaxTries && !(*conn).Broken() {
			if r.counted(start) {
				r.counts.retry(opIdx)
			}
			if workload.Sleep(r.ops, backoff(try, rng)) != nil {
				return false
			}
			continue
		}
		if r.counted(start) {
			r.counts.fail(opIdx, class, err)
		}
		if (*conn).Broken() || breaksSession(class) {
			(*conn).Close(context.Background())
			*conn = nil
		}
		return false
	}
}

// counted reports whether an op started at start falls in the measured
// window.
func (r *run) counted(start time.Time) bool {
	return r.measuring.Load() && !start.Before(time.Unix(0, r.measureAt.Load()))
}

// connect opens a session, retrying with backoff while the server is
// unreachable (it may be restarting); nil when the run stops first.
func (r *run) connect(id int, rng *rand.Rand) target.Conn {
	connIdx := len(r.names)
	for try := 1; ; try++ {
		c, err := r.tgt.Connect(r.ops)
		if err == nil {
			return c
		}
		if r.ops.Err() != nil || r.stop.Err() != nil {
			return nil
		}
		if r.measuring.Load() {
			r.counts.fail(connIdx, target.Classify(err), err)
		}
		if workload.Sleep(r.stop, min(backoff(try, rng)*5, 2*time.Second)) != nil {
			return nil
		}
	}
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
