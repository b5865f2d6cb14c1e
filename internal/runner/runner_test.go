package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	_ "github.com/txnbench/txnbench/internal/target/drivers" // Classify knows pgx errors
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
	"github.com/txnbench/txnbench/internal/workload"
)

// counterWorkload increments a row per op on real SQLite. Its op can be
// told to fail: failFirst attempts of every op return failErr.
type counterWorkload struct {
	pause     time.Duration
	opTime    time.Duration
	failErr   error
	failEvery int    // the op fails on attempts where n % failEvery != 0 (0: never)
	failLate  bool   // a failing attempt fails after opTime, not at once
	began     func() // when set, called as each attempt begins
	attempts  atomic.Int64
	commits   atomic.Int64
}

func (w *counterWorkload) OpNames() []string { return []string{"bump"} }
func (w *counterWorkload) Init(ctx context.Context, c target.Conn, _ target.Dialect, _ workload.InitOptions) (bool, error) {
	_, err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS n (v INTEGER)")
	return true, err
}
func (w *counterWorkload) Check(context.Context, target.Conn) (result.Check, error) {
	return result.Check{OK: true}, nil
}

type counterClient struct {
	w   *counterWorkload
	ops []workload.Op
}

func (w *counterWorkload) NewClient(int, *rand.Rand) workload.Client {
	c := &counterClient{w: w}
	c.ops = []workload.Op{{Name: "bump", Run: c.bump}}
	return c
}
func (c *counterClient) NextCycle() time.Duration { return c.w.pause }
func (c *counterClient) Ops() []workload.Op       { return c.ops }
func (c *counterClient) bump(ctx context.Context, conn target.Conn) error {
	if c.w.began != nil {
		c.w.began()
	}
	n := c.w.attempts.Add(1)
	fails := c.w.failEvery > 0 && n%int64(c.w.failEvery) != 0
	if fails && !c.w.failLate {
		return c.w.failErr
	}
	if err := Sleep(ctx, c.w.opTime); err != nil {
		return err
	}
	if fails {
		return c.w.failErr
	}
	if _, err := conn.Exec(ctx, "INSERT INTO n VALUES (1)"); err != nil {
		return err
	}
	c.w.commits.Add(1)
	return nil
}

// openSQLite opens a real SQLite file behind a session connector.
func openSQLite(t *testing.T) connect.Connector {
	return openWith(t, connect.Options{Strategy: connect.Session})
}

func openWith(t *testing.T, o connect.Options) connect.Connector {
	t.Helper()
	ctx := context.Background()
	tg := testutil.Open(t, "sqlite:"+t.TempDir()+"/r.db")
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := (&counterWorkload{}).Init(ctx, c, tg.Dialect(), workload.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	conns, err := connect.New(ctx, tg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conns.Close)
	return conns
}

func baseConfig() Config {
	return Config{Clients: 4, MaxTries: 3, Progress: time.Hour, Seed: 1}
}

// mustRun runs w with cfg on a SQLite database of the test's own.
func mustRun(t *testing.T, cfg Config, w workload.Workload) *Outcome {
	t.Helper()
	out, err := Run(context.Background(), cfg, openSQLite(t), w)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func op(t *testing.T, out *Outcome, name string) result.Op {
	t.Helper()
	for _, o := range out.Ops {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no op %q in %+v", name, out.Ops)
	return result.Op{}
}

func TestIterationsAreExact(t *testing.T) {
	for _, n := range []int64{1, 7, 100} {
		w := &counterWorkload{}
		cfg := baseConfig()
		cfg.Iterations = n
		out := mustRun(t, cfg, w)
		if got := op(t, out, "bump").Count; got != n {
			t.Errorf("iterations %d: bump count %d", n, got)
		}
		if got := op(t, out, result.CycleOp).Count; got != n {
			t.Errorf("iterations %d: cycle count %d", n, got)
		}
		if w.commits.Load() != n {
			t.Errorf("iterations %d: %d commits", n, w.commits.Load())
		}
	}
}

func TestDurationTicksAndCycleIncludesPause(t *testing.T) {
	w := &counterWorkload{pause: 20 * time.Millisecond, opTime: 5 * time.Millisecond}
	cfg := baseConfig()
	cfg.Duration = 600 * time.Millisecond
	cfg.Progress = 200 * time.Millisecond
	var ticks atomic.Int64
	cfg.Observers = []Observer{Funcs{OnTick: func(result.Interval) { ticks.Add(1) }}}
	out := mustRun(t, cfg, w)
	// The runner's own clock, not the test's wall clock on a loaded machine.
	if out.Measured < 600*time.Millisecond || out.Ended.Sub(out.Started) < out.Measured {
		t.Errorf("measured window %s shorter than the duration", out.Measured)
	}
	if ticks.Load() < 3 || len(out.Intervals) != int(ticks.Load()) {
		t.Errorf("%d ticks, %d intervals", ticks.Load(), len(out.Intervals))
	}
	var sum int64
	for _, iv := range out.Intervals {
		for _, o := range iv.Ops {
			if o.Name == "bump" {
				sum += o.Count
			}
			// each interval op has its op's kind, and its histogram
			// survives being put at rest after Tick
			if want := op(t, out, o.Name).Kind; o.Kind != want || o.Hist.Count() != o.Count {
				t.Errorf("interval op %s: kind %q (want %q), histogram of %d, count %d", o.Name, o.Kind, want, o.Hist.Count(), o.Count)
			}
		}
	}
	bump, cycle := op(t, out, "bump"), op(t, out, result.CycleOp)
	if bump.Kind != result.KindTxn || cycle.Kind != result.KindCycle {
		t.Errorf("kinds: bump %q, cycle %q", bump.Kind, cycle.Kind)
	}
	if sum != bump.Count || bump.Count == 0 {
		t.Errorf("intervals hold %d bumps, total %d", sum, bump.Count)
	}
	// A cycle is the pause (15-25 ms here, the workload gives 20) plus the op.
	if cycle.P50 < 20 || cycle.P50 < bump.P50 {
		t.Errorf("cycle p50 %.1f ms, bump p50 %.1f ms: the pause is not in the cycle", cycle.P50, bump.P50)
	}
	// and not in the op, which is timed from its own start.
	if cycle.P50-bump.P50 < 10 {
		t.Errorf("cycle p50 %.1f ms, bump p50 %.1f ms: the pause is in the op", cycle.P50, bump.P50)
	}
}

func TestWarmupExcluded(t *testing.T) {
	w := &counterWorkload{pause: 5 * time.Millisecond}
	cfg := baseConfig()
	cfg.Clients = 1
	cfg.Warmup = 300 * time.Millisecond
	cfg.Duration = 300 * time.Millisecond
	var measures int
	var atMeasure, atEnd int64
	cfg.Observers = []Observer{Funcs{
		OnStart:     func() { measures++; atMeasure = w.commits.Load() },
		OnWindowEnd: func() { atEnd = w.commits.Load() },
	}}
	out := mustRun(t, cfg, w)
	// Start ran once, at the end of the warm-up: ops had run by then.
	if measures != 1 || atMeasure == 0 {
		t.Errorf("Start called %d times, after %d commits; want once, after the warm-up's", measures, atMeasure)
	}
	// What is recorded is what committed between the window's start and
	// its end, give or take the one client's op across either edge,
	// however the machine's load split the run between the two phases.
	got, in := op(t, out, "bump").Count, atEnd-atMeasure
	if got < in-1 || got > in+1 {
		t.Errorf("recorded %d ops; %d committed in the window (%d in the warm-up, %d in all)", got, in, atMeasure, w.commits.Load())
	}
	if limit := cfg.Duration + plain.Slack(1700*time.Millisecond); out.Measured > limit || out.Measured < cfg.Duration {
		t.Errorf("measured %s, want 300ms (at most %s on this machine)", out.Measured, limit)
	}
}

func TestRetriesThenSuccess(t *testing.T) {
	// Every second attempt fails with a serialization failure: each op
	// succeeds on its second try and counts one retry.
	w := &counterWorkload{failErr: &pgconn.PgError{Code: "40001", Message: "could not serialize"}, failEvery: 2}
	cfg := baseConfig()
	cfg.Clients = 1
	cfg.Iterations = 20
	out := mustRun(t, cfg, w)
	b := op(t, out, "bump")
	if b.Count != 20 || b.Retries != 20 || b.ErrorCount() != 0 {
		t.Errorf("count %d retries %d errors %v; want 20, 20, none", b.Count, b.Retries, b.Errors)
	}
}

func TestRetriesExhaustedCountAsErrors(t *testing.T) {
	w := &counterWorkload{failErr: &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}, failEvery: 1 << 30}
	cfg := baseConfig()
	cfg.Clients = 1
	cfg.Iterations = 5
	cfg.MaxTries = 3
	out := mustRun(t, cfg, w)
	b := op(t, out, "bump")
	if b.Count != 0 || b.Retries != 10 || b.Errors["deadlock"] != 5 {
		t.Errorf("count %d retries %d errors %v; want 0, 10, deadlock=5", b.Count, b.Retries, b.Errors)
	}
	if b.ErrorSamples["deadlock"] == "" {
		t.Error("no error sample kept for deadlock")
	}
	if c := op(t, out, result.CycleOp); c.Count != 0 {
		t.Errorf("%d cycles recorded although every op failed", c.Count)
	}
}

func TestOtherErrorsAreNotRetried(t *testing.T) {
	w := &counterWorkload{failErr: errors.New("boom"), failEvery: 1 << 30}
	cfg := baseConfig()
	cfg.Clients = 2
	cfg.Iterations = 6
	out := mustRun(t, cfg, w)
	b := op(t, out, "bump")
	if b.Retries != 0 || b.Errors["other"] != 6 || w.attempts.Load() != 6 {
		t.Errorf("retries %d errors %v attempts %d; want 0, other=6, 6", b.Retries, b.Errors, w.attempts.Load())
	}
}

func TestInterruptReturnsWhatWasMeasured(t *testing.T) {
	w := &counterWorkload{pause: 5 * time.Millisecond, opTime: time.Hour}
	cfg := baseConfig()
	cfg.Duration = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	out, err := Run(ctx, cfg, openSQLite(t), &counterWorkload{pause: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted {
		t.Errorf("interrupted=%v", out.Interrupted)
	}
	if op(t, out, "bump").Count == 0 {
		t.Error("nothing measured before the interrupt")
	}
	// An op in flight (an hour long: Run returns only if it is cancelled)
	// is cancelled at once and not counted as an error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel2)
	out, err = Run(ctx2, cfg, openSQLite(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if b := op(t, out, "bump"); b.ErrorCount() != 0 {
		t.Errorf("cancelled ops counted as errors: %v", b.Errors)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Clients: 1, Duration: time.Second, MaxTries: 1, Progress: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*Config){
		"--clients":    func(c *Config) { c.Clients = 0 },
		"both given":   func(c *Config) { c.Iterations = 5 },
		"neither":      func(c *Config) { c.Duration = 0 },
		"--duration":   func(c *Config) { c.Duration = -time.Second },
		"--iterations": func(c *Config) { c.Duration, c.Iterations = 0, -1 },
		"--ramp":       func(c *Config) { c.Ramp = -1 },
		"--warmup":     func(c *Config) { c.Warmup = -1 },
		"--max-tries":  func(c *Config) { c.MaxTries = 0 },
		"--progress":   func(c *Config) { c.Progress = 0 },
	}
	for want, mutate := range cases {
		c := ok
		mutate(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// TestConnectorsRecordTheirWait: a session connects once per client,
// per-txn once per transaction, and a pool is waited on per transaction;
// each wait is recorded under the connector's name.
func TestConnectorsRecordTheirWait(t *testing.T) {
	cases := []struct {
		o        connect.Options
		name     string
		wantWait int64
	}{
		{connect.Options{Strategy: connect.Session}, "connect", 4},
		{connect.Options{Strategy: connect.PerTxn}, "connect", 40},
		{connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}}, "pool_wait", 40},
	}
	for _, c := range cases {
		t.Run(c.o.Strategy, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Iterations = 40
			conns := openWith(t, c.o)
			out, err := Run(context.Background(), cfg, conns, &counterWorkload{opTime: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if b := op(t, out, "bump"); b.Count != 40 || b.ErrorCount() != 0 {
				t.Fatalf("bump: %d ops, errors %v", b.Count, b.Errors)
			}
			w := op(t, out, c.name)
			if w.Count != c.wantWait {
				t.Errorf("%s recorded %d times, want %d", c.name, w.Count, c.wantWait)
			}
			if ps := conns.PoolStats(); (ps != nil) != (c.o.Strategy == connect.Pool) {
				t.Errorf("pool stats %+v", ps)
			} else if ps != nil && (ps.MaxConns != 2 || ps.Acquires != 40) {
				t.Errorf("pool stats %+v, want 2 connections and 40 acquires", ps)
			}
		})
	}
}

// TestIntervalErrorClasses: the errors of each interval are split by class,
// and the intervals add up to the run's totals.
func TestIntervalErrorClasses(t *testing.T) {
	w := &counterWorkload{pause: 2 * time.Millisecond, failErr: &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}, failEvery: 3}
	cfg := baseConfig()
	cfg.Clients = 2
	cfg.MaxTries = 1
	cfg.Duration = 400 * time.Millisecond
	cfg.Progress = 50 * time.Millisecond
	var measured atomic.Int64
	cfg.Observers = []Observer{Funcs{OnStart: func() { measured.Add(1) }}}
	out := mustRun(t, cfg, w)
	if measured.Load() != 1 {
		t.Errorf("Start called %d times, want 1", measured.Load())
	}
	if len(out.Intervals) < 3 {
		t.Fatalf("%d intervals, want several", len(out.Intervals))
	}
	var sum int64
	for _, iv := range out.Intervals {
		for _, o := range iv.Ops {
			var classes int64
			for _, n := range o.ErrorClasses {
				classes += n
			}
			if classes != o.Errors {
				t.Errorf("interval %.2fs op %s: %d errors but classes %v", iv.ElapsedS, o.Name, o.Errors, o.ErrorClasses)
			}
			if o.Errors == 0 && o.ErrorClasses != nil {
				t.Errorf("interval %.2fs op %s: empty classes should be nil, got %v", iv.ElapsedS, o.Name, o.ErrorClasses)
			}
			if o.Name == "bump" {
				sum += o.ErrorClasses["deadlock"]
			}
		}
	}
	// The intervals cover the window, as the op's errors do (those of
	// the ops in flight at its end are counted after the window).
	b := op(t, out, "bump")
	if n := b.Errors["deadlock"]; n == 0 || sum != n {
		t.Errorf("intervals add up to %d deadlocks, the run counted %d", sum, n)
	}
}

func TestCountersIntervalByClass(t *testing.T) {
	c := newCounters([]string{"a", "b"})
	c.fail(0, errclass.Deadlock, errors.New("x"))
	c.fail(0, errclass.Deadlock, errors.New("x"))
	c.fail(0, errclass.Class("no such class"), errors.New("y")) // counts as other
	c.retry(1)
	_, errs, classes, _ := c.interval(0)
	if errs != 3 || classes["deadlock"] != 2 || classes["other"] != 1 || len(classes) != 2 {
		t.Errorf("first interval: %d errors %v", errs, classes)
	}
	c.fail(0, errclass.Deadlock, errors.New("x"))
	retries, errs, classes, _ := c.interval(0)
	if retries != 0 || errs != 1 || classes["deadlock"] != 1 || len(classes) != 1 {
		t.Errorf("second interval: %d retries %d errors %v", retries, errs, classes)
	}
	if _, errs, classes, _ := c.interval(0); errs != 0 || classes != nil {
		t.Errorf("quiet interval: %d errors %v", errs, classes)
	}
	if retries, errs, classes, _ := c.interval(1); retries != 1 || errs != 0 || classes != nil {
		t.Errorf("op b: %d retries %d errors %v", retries, errs, classes)
	}
}

// TestCyclesShareOneClockRead: a client's next cycle starts when its last
// op ended, read once (issue 31: one clock read per op, shared by the
// latencies, the window check and the next start), so no time between
// cycles is lost or counted twice.
func TestCyclesShareOneClockRead(t *testing.T) {
	w := &counterWorkload{}
	cfg := baseConfig()
	cfg.Clients = 1
	cfg.Iterations = 30
	var evs []CycleEvent
	cfg.OnCycle = func(ev CycleEvent) { evs = append(evs, ev) }
	if _, err := Run(context.Background(), cfg, openSQLite(t), w); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 30 {
		t.Fatalf("%d cycles seen, want 30", len(evs))
	}
	for i := 1; i < len(evs); i++ {
		if end := evs[i-1].Start.Add(evs[i-1].Latency); !evs[i].Start.Equal(end) {
			t.Fatalf("cycle %d starts %s after cycle %d ended", i, evs[i].Start.Sub(end), i-1)
		}
	}
}
