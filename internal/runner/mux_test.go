package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestWorkerModeIsChosenForASmallPool: workers run the clients when they
// share a pool smaller than their number, as many as the pool's places.
func TestWorkerModeIsChosenForASmallPool(t *testing.T) {
	pool := func(max int) connect.Options {
		return connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: max}}
	}
	for _, tc := range []struct {
		name    string
		o       connect.Options
		clients int
		force   int
		want    int
	}{
		{"session", connect.Options{Strategy: connect.Session}, 4, 0, 0},
		{"per-txn", connect.Options{Strategy: connect.PerTxn}, 4, 0, 0},
		{"pool as large as the clients", pool(4), 4, 0, 0},
		{"pool smaller than the clients", pool(2), 4, 0, 2},
		{"forced goroutines", pool(2), 4, -1, 0},
		{"forced workers", connect.Options{Strategy: connect.Session}, 4, 3, 3},
		{"no more workers than clients", connect.Options{Strategy: connect.Session}, 4, 9, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{cfg: Config{Clients: tc.clients, workers: tc.force}, conns: openWith(t, tc.o)}
			if got := r.workers(); got != tc.want {
				t.Errorf("%d workers, want %d", got, tc.want)
			}
		})
	}
}

// TestWorkerModeCountsAsGoroutines: the same fixed work gives the same
// counts per op, per client and per class in both modes, including the
// clients' own random streams (a Chooser), aborts, a rate and a pool.
func TestWorkerModeCountsAsGoroutines(t *testing.T) {
	abort := fmt.Errorf("division by zero: %w", workload.ErrAbortClient)
	type scenario struct {
		name string
		o    connect.Options
		w    func() workload.Workload
		cfg  func(*Config)
	}
	for _, sc := range []scenario{
		{"iterations", connect.Options{Strategy: connect.Session}, func() workload.Workload { return &counterWorkload{} },
			func(c *Config) { c.Clients, c.Iterations = 6, 120 }},
		{"per client with a chooser and errors", connect.Options{Strategy: connect.Session},
			func() workload.Workload { return &choosingWorkload{err: errors.New("syntax error")} },
			func(c *Config) { c.Iterations, c.PerClient = 30, true }},
		{"aborts", connect.Options{Strategy: connect.Session}, func() workload.Workload { return &choosingWorkload{err: abort} },
			func(c *Config) { c.Iterations, c.PerClient = 30, true }},
		{"abort on error", connect.Options{Strategy: connect.Session},
			func() workload.Workload { return &choosingWorkload{err: errors.New("syntax error")} },
			func(c *Config) { c.Iterations, c.PerClient, c.AbortOnError = 30, true, true }},
		{"rate", connect.Options{Strategy: connect.Session}, func() workload.Workload { return &counterWorkload{} },
			func(c *Config) { c.Iterations, c.PerClient, c.Rate = 5, true, 5000 }},
		{"pool", connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}},
			func() workload.Workload { return &counterWorkload{} },
			func(c *Config) { c.Clients, c.Iterations = 6, 120 }},
		{"two ops per cycle over a pool", connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}},
			func() workload.Workload { return &twoOpWorkload{} },
			func(c *Config) { c.Clients, c.Iterations = 6, 120 }},
	} {
		t.Run(sc.name, func(t *testing.T) {
			type counts struct {
				ops       map[string][3]int64 // count, errors, retries
				perClient map[int]int
				aborted   int
				acquires  int64
			}
			runMode := func(workers int) counts {
				cfg := baseConfig()
				sc.cfg(&cfg)
				cfg.workers = workers
				got := counts{ops: map[string][3]int64{}, perClient: map[int]int{}}
				var mu sync.Mutex
				cfg.OnCycle = func(e CycleEvent) { mu.Lock(); got.perClient[e.Client]++; mu.Unlock() }
				conns := openWith(t, sc.o)
				out, err := Run(context.Background(), cfg, conns, sc.w())
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range out.Ops {
					got.ops[o.Name] = [3]int64{o.Count, o.ErrorCount(), o.Retries}
				}
				got.aborted = out.Aborted
				if !cfg.PerClient { // which client claims a cycle is a race
					got.perClient = nil
					delete(got.ops, "connect") // and so is which client connects
				}
				if ps := conns.PoolStats(); ps != nil {
					got.acquires = ps.Acquires
				}
				return got
			}
			g, w := runMode(-1), runMode(3)
			if fmt.Sprint(g) != fmt.Sprint(w) {
				t.Errorf("goroutines: %v\nworkers:    %v", g, w)
			}
			if g.ops[result.CycleOp][0] == 0 {
				t.Errorf("no cycles: %v", g)
			}
		})
	}
}

// twoOpWorkload's cycles run two ops, each a transaction of its own.
type twoOpWorkload struct{ counterWorkload }

func (w *twoOpWorkload) OpNames() []string { return []string{"bump", "bump2"} }

type twoOpClient struct{ workload.Client }

func (c twoOpClient) Ops() []workload.Op {
	op := c.Client.Ops()[0]
	return []workload.Op{op, {Name: "bump2", Run: op.Run}}
}

func (w *twoOpWorkload) NewClient(id int, rng *rand.Rand) workload.Client {
	return twoOpClient{w.counterWorkload.NewClient(id, rng)}
}

// TestWorkerModePoolStatistics: with more clients than the pool has
// places, each one's wait for a worker is its wait for a connection: in
// the pool_wait samples, inside its op's latency, and in the pool's
// statistics as an acquire that waited. Each op of a cycle gets its
// connection in turn, as at the connector's gate.
func TestWorkerModePoolStatistics(t *testing.T) {
	conns := openWith(t, connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}})
	cfg := baseConfig()
	cfg.Clients, cfg.Iterations = 20, 200
	out, err := Run(context.Background(), cfg, conns, &twoOpWorkload{counterWorkload{opTime: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	bump, bump2, wait := op(t, out, "bump"), op(t, out, "bump2"), op(t, out, "pool_wait")
	if bump.Count != 200 || bump2.Count != 200 || wait.Count != 400 {
		t.Errorf("%d and %d ops, %d waits recorded; want 200, 200, 400", bump.Count, bump2.Count, wait.Count)
	}
	// 18 of 20 clients always wait behind 2 ops of a millisecond or more,
	// for each op
	if wait.P50 < 1 || bump.P50 < wait.P50 || bump2.P50 < wait.P50 {
		t.Errorf("pool_wait p50 %.3f ms, ops p50 %.3f and %.3f ms: the wait is not measured, or not inside the ops", wait.P50, bump.P50, bump2.P50)
	}
	ps := conns.PoolStats()
	// the pool's own 2 opens count as acquires that waited too
	if ps.Acquires != 400 || ps.EmptyAcquires < 300 || ps.EmptyAcquires > 402 || ps.WaitS < 0.2 {
		t.Errorf("pool stats %+v: want 400 acquires, most of them waiting for 1 ms or more", ps)
	}
}

// pausingWorkload's client 0 pauses an hour before every cycle; the
// others do not pause.
type pausingWorkload struct{ counterWorkload }

type pausingClient struct {
	workload.Client
	pause time.Duration
}

func (c pausingClient) NextCycle() time.Duration { return c.pause }

func (w *pausingWorkload) NewClient(id int, rng *rand.Rand) workload.Client {
	c := pausingClient{Client: w.counterWorkload.NewClient(id, rng)}
	if id == 0 {
		c.pause = time.Hour
	}
	return c
}

// TestWorkerModeWaitsHoldNoWorker: a client waiting for its ramp time or
// in its pause leaves the only worker to the others, and the run's end
// ends those waits at once.
func TestWorkerModeWaitsHoldNoWorker(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    workload.Workload
		ramp time.Duration
	}{
		{"pause", &pausingWorkload{}, 0},
		{"ramp", &counterWorkload{}, time.Hour}, // client 1 starts in half an hour
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Clients, cfg.Duration, cfg.Ramp, cfg.workers = 2, time.Hour, tc.ramp, 1
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			cycles := map[int]int{}
			cfg.OnCycle = func(e CycleEvent) {
				mu.Lock()
				defer mu.Unlock()
				if cycles[e.Client]++; cycles[e.Client] == 5 {
					cancel()
				}
			}
			done := make(chan *Outcome)
			go func() {
				out, err := Run(ctx, cfg, openSQLite(t), tc.w)
				if err != nil {
					t.Error(err)
				}
				done <- out
			}()
			select {
			case out := <-done:
				if !out.Interrupted || len(cycles) != 1 {
					t.Errorf("interrupted %v, cycles per client %v: want one client running, the other waiting", out.Interrupted, cycles)
				}
			case <-time.After(time.Minute):
				t.Fatalf("the run did not end: a waiting client holds the only worker (cycles %v)", cycles)
			}
		})
	}
}

// TestWorkerModeInterrupt: an interrupt cancels the ops in flight and the
// clients queued for a connection (each counted unfinished, not failed),
// and leaves no goroutine behind.
func TestWorkerModeInterrupt(t *testing.T) {
	conns := openWith(t, connect.Options{Strategy: connect.Pool, Pool: target.PoolConfig{Max: 2}})
	before := runtime.NumGoroutine()
	w := &counterWorkload{opTime: time.Hour}
	cfg := baseConfig()
	cfg.Clients, cfg.Duration = 50, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	out, err := Run(ctx, cfg, conns, w)
	if err != nil {
		t.Fatal(err)
	}
	bump, cycle := op(t, out, "bump"), op(t, out, result.CycleOp)
	if !out.Interrupted || bump.ErrorCount() != 0 || bump.Count != 0 {
		t.Errorf("interrupted %v, bump %d ok, errors %v", out.Interrupted, bump.Count, bump.Errors)
	}
	// the workers began every client's cycle at once: 2 in an op, 48 queued
	if bump.Unfinished != 50 || cycle.Unfinished != 50 || w.attempts.Load() != 2 {
		t.Errorf("%d ops and %d cycles unfinished, %d ops started; want 50, 50, 2", bump.Unfinished, cycle.Unfinished, w.attempts.Load())
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before the run, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// brokenOneWorkload's client 0 fails every op with an error retrying does
// not cure; the others succeed.
type brokenOneWorkload struct {
	counterWorkload
	failures atomic.Int64
}

type brokenClient struct {
	workload.Client
	ops []workload.Op
}

func (c brokenClient) Ops() []workload.Op { return c.ops }

func (w *brokenOneWorkload) NewClient(id int, rng *rand.Rand) workload.Client {
	c := w.counterWorkload.NewClient(id, rng)
	if id != 0 {
		return c
	}
	return brokenClient{Client: c, ops: []workload.Op{{Name: "bump", Run: func(context.Context, target.Conn) error {
		w.failures.Add(1)
		return errors.New("relation n is corrupt")
	}}}}
}

// TestWorkerModeBackoffHoldsNoWorker: a client backing off after failures
// in a row leaves the only worker to the others (were it held, the two
// clients would alternate, one failure per success).
func TestWorkerModeBackoffHoldsNoWorker(t *testing.T) {
	w := &brokenOneWorkload{}
	cfg := baseConfig()
	cfg.Clients, cfg.Duration, cfg.workers = 2, time.Hour, 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ok atomic.Int64
	cfg.OnCycle = func(e CycleEvent) {
		if e.Err == nil && ok.Add(1) == 200 {
			cancel()
		}
	}
	out, err := Run(ctx, cfg, openSQLite(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if f := w.failures.Load(); f >= 100 || op(t, out, "bump").Errors["other"] == 0 {
		t.Errorf("%d failures of client 0 (counted %v) while client 1 ran 200 cycles: its backoffs held the worker", f, op(t, out, "bump").Errors)
	}
}
