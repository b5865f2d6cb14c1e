package runner

import (
	"context"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
)

// The worker mode (issue 18). When the clients share a pool smaller than
// their number, every connection has waiters, and a goroutine per client
// means a park and a wake-up per transaction, the query run on a goroutine
// whose caches went cold, and the GC scanning a stack per client. Instead
// the clients are states on as many worker goroutines as the pool has
// places, as pgbench runs many clients on a few threads: a worker takes the
// first client of a FIFO queue of ready ones, runs one op of its cycle
// (the beginCycle, runOp and endCycle of (*client).runCycle, which a client
// goroutine runs) and puts it back at the tail: for its cycle's next op,
// which gets a connection of its own as at the connector's gate, or after
// the cycle's end, for its next cycle. A client that must wait for a time
// (its ramp, its scheduled start, its pause, a backoff after a failed op)
// waits on a timer that makes it ready again, holding no worker. Its wait for a connection is the time from
// becoming ready to a worker taking it: in its op's latency, recorded as the
// connection wait and counted in the pool statistics when it queued, as the
// connector's gate counts a wait (connect.Shared).

// workers is how many worker goroutines run the clients: 0 for a goroutine
// per client.
func (r *run) workers() int {
	switch n := r.cfg.workers; {
	case n > 0:
		return min(n, r.cfg.Clients)
	case n < 0:
		return 0
	}
	if s, ok := r.conns.(connect.Shared); ok && s.Places() < r.cfg.Clients {
		return s.Places()
	}
	return 0
}

// muxClient is a client's state in the worker mode, all guarded by mux.mu
// while the client is queued or sleeping, and owned by whoever runs it
// otherwise.
type muxClient struct {
	m        *mux // nil in the goroutine mode
	phase    int
	readyAt  time.Time     // when it became ready for a worker; zero once it got its connection
	queued   bool          // it found no worker free then
	delay    time.Duration // a backoff to wait before its cycle ends
	sleeping bool          // its timer is armed
	wake     *time.Timer
}

// A client's phases: what comes when its wait ends.
const (
	muxRamp  = iota // its ramp time came: make it, begin a cycle
	muxNext         // begin a cycle
	muxEnd          // its ops are over (and its backoff): end its cycle, begin the next
	muxStart        // its scheduled start came
	muxPause        // its pause is over: ready for a worker
	muxRun          // ready: a worker begins its cycle
	muxOps          // ready: a worker runs its cycle's next op
)

// mux runs the clients of a run on workers.
type mux struct {
	r       *run
	shared  connect.Shared // nil when the connector is not a pool
	mu      sync.Mutex
	cond    sync.Cond // a worker waits on it for a ready client
	ready   []*client // a ring of the ready clients, first at head
	head, n int
	idle    int       // workers waiting for a ready client
	free    int       // workers not running a client
	live    int       // clients not ended
	all     []*client // the clients, for the stop
	stopped bool      // the run's stop came: no more waits for a time
}

// startMux starts the clients of r on workers goroutines, added to wg.
func startMux(ctx context.Context, r *run, workers int, wg *sync.WaitGroup) {
	m := &mux{r: r, ready: make([]*client, r.cfg.Clients), free: workers}
	m.shared, _ = r.conns.(connect.Shared)
	m.cond.L = &m.mu
	for i := 0; i < r.cfg.Clients && ctx.Err() == nil; i++ { // Ctrl-C stops the start-up too
		c := &client{run: r, id: i}
		c.m = m
		m.all = append(m.all, c)
	}
	m.live = len(m.all)
	if m.live == 0 {
		return
	}
	unwatch := context.AfterFunc(r.stop, m.stop)
	unwatchRamp := context.AfterFunc(r.ramping, m.endRamps)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer unwatch() // the clients have ended
			defer unwatchRamp()
			m.work(i)
		}()
	}
	for _, c := range m.all {
		var d time.Duration
		if r.cfg.Ramp > 0 && r.cfg.Clients > 1 {
			d = r.rampDelay(c.id)
		}
		c.phase = muxRamp
		m.wait(c, d, false)
	}
}

// work is worker i: it runs the ready clients until all have ended.
func (m *mux) work(i int) {
	m.mu.Lock()
	for {
		if m.n == 0 {
			if m.live == 0 {
				m.mu.Unlock()
				return
			}
			m.idle++
			m.cond.Wait()
			m.idle--
			continue
		}
		c := m.ready[m.head]
		m.ready[m.head] = nil
		m.head = (m.head + 1) % len(m.ready)
		m.n--
		m.free--
		m.mu.Unlock()
		c.shard = i
		m.run(c)
		m.mu.Lock()
		m.free++
	}
}

// run runs c's next op, as (*client).runCycle does, then puts it back for
// its next op (which waits for a connection again, as at the connector's
// gate) or moves it on.
func (m *mux) run(c *client) {
	if c.phase == muxRun {
		c.beginCycle()
		c.phase = muxOps
	}
	if c.runOp() {
		m.push(c, true)
		return
	}
	// a backoff after a failed op is part of the cycle, as the goroutine's
	// sleep in attempt is
	c.phase = muxEnd
	d := c.delay
	c.delay = 0
	m.wait(c, d, true)
}

// wait moves c on once d has passed: at once when d is not positive or
// the run is stopping (for a ramp time: or every iteration is claimed),
// with the error a sleep would return. byWorker says
// a worker calls it, which takes the next ready client itself.
func (m *mux) wait(c *client, d time.Duration, byWorker bool) {
	over := m.r.stop // what ends the wait early
	if c.phase == muxRamp {
		over = m.r.ramping
	}
	if d > 0 {
		m.mu.Lock()
		if !m.stopped && over.Err() == nil {
			c.sleeping = true
			if c.wake == nil {
				c.wake = time.AfterFunc(d, func() { m.woken(c) })
			} else {
				c.wake.Reset(d)
			}
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
	}
	m.advance(c, over.Err(), byWorker)
}

// woken is c's timer firing.
func (m *mux) woken(c *client) {
	m.mu.Lock()
	ok := c.sleeping
	c.sleeping = false
	m.mu.Unlock()
	if ok { // else the stop took it
		m.advance(c, m.r.stop.Err(), false) // the stop may have come first
	}
}

// stop ends the waits for a time at the run's stop, as a goroutine's
// sleep on the run's stop ends.
func (m *mux) stop() {
	m.mu.Lock()
	m.stopped = true
	woken := m.wakeLocked(func(*client) bool { return true })
	m.mu.Unlock()
	for _, c := range woken {
		m.advance(c, m.r.stop.Err(), false)
	}
}

// endRamps ends the clients still waiting for their ramp time, as a
// goroutine's ramp sleep ends: at the stop, or once every iteration is
// claimed.
func (m *mux) endRamps() {
	m.mu.Lock()
	ended := m.wakeLocked(func(c *client) bool { return c.phase == muxRamp })
	m.mu.Unlock()
	for _, c := range ended {
		m.advance(c, m.r.ramping.Err(), false)
	}
}

// wakeLocked takes the sleeping clients that match out of their sleep,
// their timers stopped, and returns them for the caller to advance once
// it lets m.mu go. The caller holds m.mu.
func (m *mux) wakeLocked(match func(*client) bool) []*client {
	var woken []*client
	for _, c := range m.all {
		if c.sleeping && match(c) {
			c.sleeping = false
			c.wake.Stop()
			woken = append(woken, c)
		}
	}
	return woken
}

// advance moves c on from its phase, err being how its wait ended (the
// run's stop's error, or nil), as (*run).client's loop does: to a wait for
// a time, to the ready queue or to its end.
func (m *mux) advance(c *client, err error, byWorker bool) {
	var d time.Duration
	switch c.phase {
	case muxRamp:
		if err != nil {
			m.end(c)
			return
		}
		c.init()
		c.phase = muxNext
		m.advance(c, nil, byWorker)
		return
	case muxEnd: // a backoff's end is not checked: next sees the stop
		// Off a worker after a backoff the cycle failed, so endCycle keeps
		// nothing in the worker's slowest shard.
		if !c.endCycle() {
			m.end(c)
			return
		}
		c.phase = muxNext
		m.advance(c, nil, byWorker)
		return
	case muxNext:
		if !c.next(time.Now()) {
			m.end(c)
			return
		}
		if c.sched == nil {
			c.phase, d = muxPause, c.cyc.pause
		} else {
			c.phase, d = muxStart, time.Until(c.cyc.start)
		}
	case muxStart:
		if err != nil {
			m.end(c)
			return
		}
		c.started()
		c.phase, d = muxPause, c.cyc.pause
	case muxPause:
		if err != nil {
			m.end(c)
			return
		}
		c.phase = muxRun
		m.push(c, byWorker)
		return
	}
	m.wait(c, d, byWorker)
}

// push puts c, ready now, at the tail of the queue.
func (m *mux) push(c *client, byWorker bool) {
	now := time.Now()
	c.readyAt = now
	c.busy[c.id].since.Store(now.UnixNano()) // in an op from now on, as in the gate
	m.mu.Lock()
	// it waits when the free workers go to those ahead of it (a worker
	// putting its client back is free)
	free := m.free
	if byWorker {
		free++
	}
	c.queued = m.n >= free
	m.ready[(m.head+m.n)%len(m.ready)] = c
	m.n++
	if !byWorker && m.idle > 0 {
		m.cond.Signal()
	}
	m.mu.Unlock()
}

// end ends c.
func (m *mux) end(c *client) {
	if c.conns != nil {
		c.closeConns()
	}
	m.mu.Lock()
	m.live--
	if m.live == 0 {
		m.cond.Broadcast()
	}
	m.mu.Unlock()
}

// since is when the client's next op began waiting for its connection:
// when it became ready for a worker in the worker mode, else now (the
// end of its last op, when it has not waited since).
func (c *client) since() time.Time {
	if !c.readyAt.IsZero() {
		return c.readyAt
	}
	return c.now()
}

// took returns the wait for a connection as the client saw it, given the
// time Get took: in the worker mode, when the client queued, from when it
// became ready, counted in the pool statistics.
func (c *client) took(waited time.Duration) time.Duration {
	if c.readyAt.IsZero() {
		return waited
	}
	d, queued := time.Since(c.readyAt), c.queued
	c.readyAt, c.queued = time.Time{}, false
	if !queued || c.m.shared == nil { // queued for a worker, not a connection
		return waited
	}
	c.m.shared.Queued(d)
	return d
}

// backOff waits d before the client's next op: in the worker mode after
// its cycle, on a timer, so the client holds no worker while it waits.
func (c *client) backOff(d time.Duration) {
	if c.m != nil {
		c.delay = d
		return
	}
	Sleep(c.stop, d)
}
