package connect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/target"
)

// The strategies.
const (
	Session = "session" // each client holds its own connection
	PerTxn  = "per-txn" // a new connection for every transaction
	Pool    = "pool"    // clients share a pool
)

// Strategies lists the strategies for help and errors.
var Strategies = []string{Session, PerTxn, Pool}

// Options choose and size the strategy; the zero value is a session per
// client.
type Options struct {
	Strategy string
	Pool     target.PoolConfig
}

// The histograms of the time Get takes (Connector.WaitName).
const (
	waitConnect = "connect"   // opening a connection
	waitPool    = "pool_wait" // borrowing one from the pool
)

// WaitName is the WaitName of the Connector New makes with o.
func (o Options) WaitName() string {
	if o.Strategy == Pool {
		return waitPool
	}
	return waitConnect
}

// Validate returns a usage error naming the fix.
func (o Options) Validate() error {
	switch o.Strategy {
	case "", Session, PerTxn:
		return nil
	case Pool:
		switch {
		case o.Pool.Max < 1:
			return fmt.Errorf("--pool-max %d: give at least 1", o.Pool.Max)
		case o.Pool.Min < 0 || o.Pool.Min > o.Pool.Max:
			return fmt.Errorf("--pool-min %d: give 0 to --pool-max (%d)", o.Pool.Min, o.Pool.Max)
		case o.Pool.Lifetime < 0 || o.Pool.HealthCheck < 0:
			return fmt.Errorf("--pool-lifetime and --pool-health-check must not be negative")
		}
		return nil
	}
	return fmt.Errorf("unknown --conn %q: choose one of %s", o.Strategy, strings.Join(Strategies, ", "))
}

// Connector hands out connections to the clients of one run.
type Connector interface {
	// Client makes the connection handle of one client.
	Client() Handle
	// WaitName names the histogram of the time Get takes: "connect" when
	// it opens connections, "pool_wait" when it borrows them.
	WaitName() string
	// PoolStats is the shared pool's statistics, nil without a pool.
	PoolStats() *target.PoolStats
	Close()
}

// Shared is a Connector whose clients share a fixed number of connections
// (a pool). A runner may queue its clients itself, letting no more than
// Places of them Get at once: then Get never waits in the connector, and
// Queued counts each wait in the runner's queue in the pool statistics as
// a wait in the connector's own queue is counted.
type Shared interface {
	Connector
	// Places is how many clients can hold a connection at once.
	Places() int
	// Queued counts a wait of d for a connection made outside Get.
	Queued(d time.Duration)
}

// Handle is one client's access to connections. It is used by one
// goroutine at a time (in the runner's worker mode, by whichever worker
// runs the client).
type Handle interface {
	// Get returns the connection for the next transaction and the time it
	// took to get it; zero when the client's own session was reused.
	Get(ctx context.Context) (target.Conn, time.Duration, error)
	// Put is called after the transaction. With drop (the session broke,
	// or may have), the connection is discarded rather than kept or pooled.
	Put(c target.Conn, drop bool)
	// Close releases what the client holds.
	Close()
}

// New makes the connector for a target.
func New(ctx context.Context, t target.Target, o Options) (Connector, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	switch o.Strategy {
	case PerTxn:
		return perTxn{t}, nil
	case Pool:
		p, err := t.OpenPool(ctx, o.Pool)
		if err != nil {
			return nil, fmt.Errorf("opening a pool of %d connections: %w", o.Pool.Max, err)
		}
		return &pool{p: p, g: newGate(o.Pool.Max), places: o.Pool.Max}, nil
	}
	return session{t}, nil
}

// session: each client connects once and keeps its connection, replacing
// it only when it breaks.
type session struct{ t target.Target }

func (s session) Client() Handle             { return &sessionHandle{t: s.t} }
func (session) WaitName() string             { return waitConnect }
func (session) PoolStats() *target.PoolStats { return nil }
func (session) Close()                       {}

type sessionHandle struct {
	t target.Target
	c target.Conn
}

func (h *sessionHandle) Get(ctx context.Context) (target.Conn, time.Duration, error) {
	if h.c != nil && h.c.Broken() { // it died after its last transaction
		h.Close()
	}
	if h.c != nil {
		return h.c, 0, nil
	}
	start := time.Now()
	c, err := h.t.Connect(ctx)
	if err != nil {
		return nil, 0, err
	}
	h.c = c
	return c, time.Since(start), nil
}

func (h *sessionHandle) Put(c target.Conn, drop bool) {
	if drop || c.Broken() {
		h.Close()
	}
}

func (h *sessionHandle) Close() {
	if h.c != nil {
		h.c.Close(context.Background())
		h.c = nil
	}
}

// perTxn: a new connection for every transaction, closed after it.
type perTxn struct{ t target.Target }

func (p perTxn) Client() Handle             { return perTxnHandle(p) }
func (perTxn) WaitName() string             { return waitConnect }
func (perTxn) PoolStats() *target.PoolStats { return nil }
func (perTxn) Close()                       {}

type perTxnHandle struct{ t target.Target }

func (h perTxnHandle) Get(ctx context.Context) (target.Conn, time.Duration, error) {
	start := time.Now()
	c, err := h.t.Connect(ctx)
	if err != nil {
		return nil, 0, err
	}
	return c, time.Since(start), nil
}

func (perTxnHandle) Put(c target.Conn, _ bool) { c.Close(context.Background()) }
func (perTxnHandle) Close()                    {}

// pool: clients borrow a connection from one shared pool per transaction,
// queueing in the gate for their turn.
type pool struct {
	p      target.Pool
	g      *gate
	places int
}

func (p *pool) Client() Handle { return &poolHandle{pool: p} }
func (*pool) WaitName() string { return waitPool }

// Places is the pool's size.
func (p *pool) Places() int { return p.places }

// Queued counts a wait as the gate counts its own.
func (p *pool) Queued(d time.Duration) {
	p.g.waits.Add(1)
	p.g.waited.Add(int64(d))
}

// PoolStats counts the waits in the gate as waits for a connection.
func (p *pool) PoolStats() *target.PoolStats {
	s := p.p.Stats()
	s.EmptyAcquires += p.g.waits.Load()
	s.WaitS += time.Duration(p.g.waited.Load()).Seconds()
	return &s
}
func (p *pool) Close() {
	p.g.close()
	p.p.Close()
}

type poolHandle struct {
	*pool
	w *waiter // this client's place in the gate's queue
}

func (h *poolHandle) Get(ctx context.Context) (target.Conn, time.Duration, error) {
	start := time.Now()
	queued, err := h.g.enter(ctx, &h.w)
	if err != nil {
		return nil, 0, err
	}
	c, err := h.p.Acquire(ctx)
	if err != nil {
		h.g.leave()
		return nil, 0, err
	}
	d := time.Since(start)
	if queued {
		h.g.waited.Add(int64(d))
	}
	return c, d, nil
}

func (h *poolHandle) Put(c target.Conn, drop bool) {
	if drop {
		target.Discard(c)
	} else {
		c.Close(context.Background())
	}
	h.g.leave()
}
func (*poolHandle) Close() {}
