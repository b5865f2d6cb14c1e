package job

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/tempdir"
)

// deaths are the processes txnbench started that died unasked and were
// restarted by supervision, not yet put on a Result's timeline.
type deaths struct {
	mu     sync.Mutex
	on     bool // supervision started
	events []death
}

type death struct {
	ev     localdb.Event
	target string // "server", "pooler 2 of 3", "HAProxy"
}

// supervise has every server, pooler and proxy txnbench started for db
// restarted when it dies unasked, each death kept for the next run's
// Faults. A deliberate kill (a process's Kill) is not one.
func (d *Database) supervise() {
	if d.lender != nil {
		d.lender.supervise() // the borrowed cluster, once, by its owner
	}
	d.deaths.mu.Lock()
	defer d.deaths.mu.Unlock()
	if d.deaths.on {
		return
	}
	d.deaths.on = true
	seen := func(target string) func(localdb.Event) {
		return func(ev localdb.Event) {
			d.deaths.mu.Lock()
			defer d.deaths.mu.Unlock()
			d.deaths.events = append(d.deaths.events, death{ev, target})
		}
	}
	if d.server != nil && d.lender == nil {
		d.server.Supervise(seen("server"))
	}
	for i, b := range d.Poolers() {
		b.Supervise(seen(d.PoolerTarget(i)))
	}
	if p := d.Proxy(); p != nil {
		p.Supervise(seen("HAProxy"))
	}
}

// takeDeaths waits for restarts under way, within ctx (after an
// interrupt, what is left of its budget), and returns the deaths seen so
// far (the borrowed cluster's first), forgetting them.
func (d *Database) takeDeaths(ctx context.Context) []death {
	var events []death
	if d.lender != nil {
		events = d.lender.takeDeaths(ctx) // the borrowed cluster's, seen during this run
	}
	// A supervised process holds its lock while supervision restarts it:
	// its death is recorded once the restart is over.
	within(ctx, func() {
		if d.server != nil {
			d.server.PID()
		}
		d.poolerPIDs()
		if p := d.Proxy(); p != nil {
			p.PID()
		}
	})
	d.deaths.mu.Lock()
	events = append(events, d.deaths.events...)
	d.deaths.events = nil
	d.deaths.mu.Unlock()
	return events
}

// deathCount is how many deaths supervision has seen and not yet handed
// out (takeDeaths), the borrowed cluster's included.
func (d *Database) deathCount() int {
	n := 0
	if d.lender != nil {
		n = d.lender.deathCount()
	}
	d.deaths.mu.Lock()
	defer d.deaths.mu.Unlock()
	return n + len(d.deaths.events)
}

// text says what died and what came of starting it again.
func (e death) text() string {
	note := fmt.Sprintf("%s (pid %d) died unasked (%s): ", e.ev.Name, e.ev.PID, e.ev.Exit)
	if e.ev.Err != nil {
		return note + "could not start it again: " + errclass.FirstLine(e.ev.Err)
	}
	return note + fmt.Sprintf("txnbench started it again on its port in %.2f s", e.ev.Took.Seconds())
}

// addDeaths waits for restarts under way (the invariant check comes next)
// and puts the deaths seen so far on r's timeline (times from the window's
// start), forgetting them.
func (d *Database) addDeaths(ctx context.Context, r *result.Result, window time.Time) {
	for _, e := range d.takeDeaths(ctx) {
		r.Faults = append(r.Faults, result.Fault{
			AtS: e.ev.At.Sub(window).Seconds(), Kind: "died", Target: e.target, Note: e.text(),
		})
	}
	sort.SliceStable(r.Faults, func(i, j int) bool { return r.Faults[i].AtS < r.Faults[j].AtS })
}

// startedPIDs are the processes txnbench started for d as they are now:
// the server (its own or the borrowed one), each pooler and the proxy;
// 0 for one that is down.
func (d *Database) startedPIDs() []int {
	var pids []int
	if d.server != nil {
		pids = append(pids, d.server.PID())
	}
	pids = append(pids, d.poolerPIDs()...)
	if p := d.Proxy(); p != nil {
		pids = append(pids, p.PID())
	}
	return pids
}

// diedWait is how long after a lost connection a process of before may
// still be seen alive: the client sees its sockets close as it exits.
const diedWait = time.Second

// restartWait bounds the wait for supervision to start a dead process
// again (it tries ten times, half a second apart, each start its own).
const restartWait = time.Minute

// diedSince reports whether a process of before (startedPIDs as some
// work began) died since, err being why that work failed, and then waits
// until supervision has started it again (or given up). A connection
// that was lost waits diedWait for its process to be gone.
func (d *Database) diedSince(ctx context.Context, before []int, err error) bool {
	gone := func() bool {
		for _, pid := range before {
			if pid > 0 && !tempdir.Alive(pid, 0) {
				return true
			}
		}
		return d.deathCount() > 0
	}
	wait := time.Duration(0)
	switch target.Classify(err) {
	case errclass.ConnectionLost, errclass.AdminShutdown, errclass.ConnectRefused, errclass.Timeout:
		wait = diedWait
	}
	if !pollUntil(ctx, wait, gone) {
		return false
	}
	pollUntil(ctx, restartWait, func() bool { return d.deathCount() > 0 })
	return true
}

// pollUntil calls cond until it holds, within limit (once for 0); it
// reports whether cond held.
func pollUntil(ctx context.Context, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// windowClock is a runner observer noting when the measured window opened.
type windowClock struct{ at atomic.Int64 }

func (w *windowClock) Start()               { w.at.Store(time.Now().UnixNano()) }
func (w *windowClock) Tick(result.Interval) {}
func (w *windowClock) WindowEnd()           {}
func (w *windowClock) Stop()                {}

// opened returns when the window opened, or else when the run started.
func (w *windowClock) opened(started time.Time) time.Time {
	if ns := w.at.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return started
}

// checkConnectWait bounds the invariant check's connecting, each way
// (through the pooler, then straight to the server).
const checkConnectWait = 5 * time.Second

// errCheckNoAnswer is why the invariant check could not connect in time.
var errCheckNoAnswer = fmt.Errorf("the server did not answer within %s", checkConnectWait)

// withCheckConn runs the invariant check f on a new session through the
// pooler as the run's clients went, or, when the server itself is known
// and the pooler cannot be reached or something in front of the server
// (a pooler's console, the proxy) did not answer in time (stuck), on a
// session straight to the server, saying so in r's notes. A connection
// that does not succeed within checkConnectWait fails with
// errCheckNoAnswer; a check that goes on while the server answers
// nothing (see whileAnswering) fails with errCheckSilent.
func withCheckConn(ctx context.Context, s Spec, db *Database, poolers *pooler.Watcher, r *result.Result, f func(context.Context, target.Conn) error) error {
	direct := db.serverSpec(s)
	bypass := db.poolerName != "" && direct.URL != ""
	why := poolers.Silent()
	var c target.Conn
	err := why
	connect := db.Connect
	if why == nil || !bypass {
		c, err = connectWithin(ctx, connect)
		why = err
	}
	if err != nil && bypass && ctx.Err() == nil {
		connect = func(ctx context.Context) (target.Conn, error) {
			if db.direct != nil { // the user's server, opened first (openServer)
				return db.direct.Connect(ctx)
			}
			t, err := target.Open(ctx, direct)
			if err != nil {
				return nil, err
			}
			defer t.Close() // its sessions live on
			return t.Connect(ctx)
		}
		c, err = connectWithin(ctx, connect)
		if err != nil {
			return target.ConnectError(direct.URL, err)
		}
		r.Notes = append(r.Notes, "the invariant check connected to the server directly: the pooler could not be reached ("+errclass.OneLine(why.Error())+")")
	}
	if err != nil {
		return target.ConnectError(db.URL, err)
	}
	defer c.Close(context.Background())
	if db.Dialect().Embedded { // no server to freeze
		return f(ctx, c)
	}
	return whileAnswering(ctx, connect, func(ctx context.Context) error { return f(ctx, c) })
}

// checkSilence is how long the invariant check goes on while the server
// answers nothing: the check's queries may take minutes on a server that
// is slow (it answers a probe meanwhile), not on one that is frozen.
const checkSilence = 10 * time.Second

// checkProbeEvery is how long a check runs before, and between, the
// probes of whileAnswering: a quick check sends none.
const checkProbeEvery = 2 * time.Second

// errCheckSilent is why the invariant check was given up.
var errCheckSilent = fmt.Errorf("the server did not answer for %s during the check", checkSilence)

// whileAnswering runs f with a context that is cancelled once the server
// has answered no probe (a new session through connect and its SELECT 1)
// for checkSilence, and then returns errCheckSilent. A probe the server
// refuses (too many connections, its error) is an answer too: only
// silence gives the check up.
func whileAnswering(ctx context.Context, connect func(context.Context) (target.Conn, error), f func(context.Context) error) error {
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		answered := time.Now()
		for runner.Sleep(fctx, checkProbeEvery) == nil {
			if left := checkSilence - time.Since(answered); left > 0 && probe(fctx, connect, left) {
				answered = time.Now()
			}
			if time.Since(answered) >= checkSilence {
				cancel(errCheckSilent)
				return
			}
		}
	}()
	err := f(fctx)
	cancel(nil)
	<-done
	if err != nil && errors.Is(context.Cause(fctx), errCheckSilent) {
		return errCheckSilent
	}
	return err
}

// probe reports whether the server answers (anything) within d on a new
// session through connect.
func probe(ctx context.Context, connect func(context.Context) (target.Conn, error), d time.Duration) bool {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	c, err := connect(pctx)
	if err == nil {
		var one int
		err = target.QueryRow(pctx, c, "SELECT 1", nil, &one)
		c.Close(context.Background())
	}
	return err == nil || (pctx.Err() == nil && target.Classify(err) != errclass.Timeout)
}

// connectWithin is connect within checkConnectWait: a server that does not
// answer in time (SIGSTOPped, or behind a stuck pooler) fails with
// errCheckNoAnswer.
func connectWithin(ctx context.Context, connect func(context.Context) (target.Conn, error)) (target.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, checkConnectWait)
	defer cancel()
	c, err := connect(cctx)
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w: %w", errCheckNoAnswer, err)
	}
	return c, err
}
