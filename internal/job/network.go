package job

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
)

// pings is how many trivial queries measure a path's round trip: the
// fastest counts, the others having met a busy machine.
const pings = 100

// shapeOrClose puts the --network proxy between the clients and db
// (shapeNetwork), closing db if that fails.
func shapeOrClose(ctx context.Context, s Spec, db *Database) error {
	if err := shapeNetwork(ctx, s, db); err != nil {
		db.Close()
		return err
	}
	return nil
}

// shapeNetwork starts a shaped proxy (--network) in front of the address
// the clients connect to, on a port txnbench holds for the run, makes db's
// target the one through it, and measures the round trip through it.
// Without s.Network it does nothing.
func shapeNetwork(ctx context.Context, s Spec, db *Database) error {
	if s.Network == nil {
		return nil
	}
	backend, err := proxyBackend(db.conn.URL, db.addr)
	if err != nil {
		return fmt.Errorf("--network: %w", err)
	}
	ln, err := localdb.Listen()
	if err != nil {
		return err
	}
	p := faultproxy.StartShaped(ln, backend, *s.Network)
	u := db.conn.WithHost(p.Addr())
	t, err := openSpec(ctx, u)
	if err != nil {
		p.Close()
		return err
	}
	rtt, err := measureRTT(ctx, t)
	if err != nil {
		t.Close()
		p.Close()
		return fmt.Errorf("measuring the round trip through --network %s: %w", s.Network, err)
	}
	db.Target, db.conn, db.addr, db.shaper = t, u, localAddr(ln.Addr().(*net.TCPAddr).Port), p
	if db.network == nil {
		db.network = &result.Network{}
	}
	db.network.Shape, db.network.RTTMs, db.network.MeasuredRTTMs = s.Network.String(), ms(s.Network.RTT), ms(rtt)
	s.log(fmt.Sprintf("network %s, measured rtt %.2f ms, between the clients and %s (proxy on %s)", s.Network, ms(rtt), db.URL, p.Addr()))
	return nil
}

// reachable fails, in target.ConnectError's words naming u, when nothing
// answers at addr, u's server: a proxy in front of it would only close
// the connections it cannot forward, which says nothing of why. It is no
// Target: what answers there is opened once, through the proxy.
func reachable(ctx context.Context, u string, addr target.Addr) error {
	if addr.TCP() == "" {
		return nil // no TCP address: shapeNetwork refuses it
	}
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr.TCP())
	if err != nil {
		return target.ConnectError(u, err)
	}
	return c.Close()
}

// shapePoolerNetwork starts a shaped proxy (--pooler-network) in front of
// the server's TCP address (backend, the URL PgBouncer logs in with, at addr),
// on a port txnbench holds for the run, measures the round trip to the
// server through it, and returns the address PgBouncer is to use. In front
// of temp-postgres PgBouncer then reaches the server over TCP, not its
// Unix socket: it logs in with the keys of a client's SCRAM login (see
// localdb.BouncerOptions.Verifier), which hold no password to give away
// should another process take the server's port while it is down.
func shapePoolerNetwork(ctx context.Context, s Spec, db *Database, backend string, addr target.Addr) (host string, port int, err error) {
	tcp, err := proxyBackend(backend, addr)
	if err != nil {
		return "", 0, fmt.Errorf("--pooler-network: %w", err)
	}
	ln, err := localdb.Listen()
	if err != nil {
		return "", 0, err
	}
	p := faultproxy.StartShaped(ln, tcp, *s.PoolerNetwork)
	t, err := openSpec(ctx, db.conn.WithURL(target.WithHost(backend, p.Addr()))) // the server's protocol, as db.conn's
	if err != nil {
		p.Close()
		return "", 0, err
	}
	rtt, err := measureRTT(ctx, t)
	t.Close()
	if err != nil {
		p.Close()
		return "", 0, fmt.Errorf("measuring the round trip through --pooler-network %s: %w", s.PoolerNetwork, err)
	}
	db.poolerShaper = p
	if db.network == nil {
		db.network = &result.Network{}
	}
	db.network.PoolerShape, db.network.PoolerMeasuredRTTMs = s.PoolerNetwork.String(), ms(rtt)
	s.log(fmt.Sprintf("network %s, measured rtt %.2f ms, between the pooler and the server (proxy on %s)", s.PoolerNetwork, ms(rtt), p.Addr()))
	lp := ln.Addr().(*net.TCPAddr)
	return lp.IP.String(), lp.Port, nil
}

// measureRTT is the fastest of a few trivial queries on one new session
// of t, after one to warm it up.
func measureRTT(ctx context.Context, t target.Target) (time.Duration, error) {
	c, err := t.Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close(context.Background())
	best := time.Duration(1<<63 - 1)
	for i := range pings + 1 {
		t0 := time.Now()
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			return 0, err
		}
		if d := time.Since(t0); i > 0 {
			best = min(best, d)
		}
	}
	return best, nil
}

// networkWatch is a runner observer of the network's proxies over the
// span the runner measures the client's CPU in (Start to Stop): their CPU
// (db.network.ProxyCPUS), how long each held what it forwarded by its own
// clock (ProxyHeldMs, PoolerHeldMs), and, with a probe session
// through the clients' path, the round trip measured during the window
// (WindowRTTMs): a trivial query every result.RTTProbeEvery until the
// window ends.
type networkWatch struct {
	db     *Database
	probe  target.Conn // nil: no probe
	from   time.Duration
	held   [2]faultproxy.Held // the clients' proxy's, the pooler's
	end    chan struct{}      // closed: the probe stops
	cancel context.CancelFunc
	done   chan []time.Duration
}

// watchNetwork is the network's observer for db, its probe session opened
// now (outside the window) when db has a shaped client network; close
// ends the probe's session.
func watchNetwork(ctx context.Context, db *Database) (w *networkWatch, close func()) {
	w = &networkWatch{db: db}
	if db.shaper == nil {
		return w, func() {}
	}
	c, err := db.Target.Connect(ctx)
	if err != nil {
		return w, func() {} // the run's clients will meet the same; the window's rtt stays unmeasured
	}
	w.probe = c
	return w, func() { c.Close(context.Background()) }
}

func (w *networkWatch) Start() {
	w.from, w.held = w.db.proxiesCPU(), [2]faultproxy.Held{w.db.shaper.Held(), w.db.poolerShaper.Held()}
	if w.probe == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.end, w.cancel, w.done = make(chan struct{}), cancel, make(chan []time.Duration, 1)
	go func() { w.done <- probeRTT(ctx, w.end, w.probe) }()
}

func (w *networkWatch) Tick(result.Interval) {}

// WindowEnd ends the probe (what comes after the window is not its
// load), letting its query in flight finish, for probeGrace at most.
func (w *networkWatch) WindowEnd() {
	if w.end == nil {
		return
	}
	close(w.end)
	w.end = nil
	t := time.AfterFunc(probeGrace, w.cancel)
	rtts := <-w.done
	t.Stop()
	w.cancel()
	n := w.db.network
	n.WindowRTTProbes = len(rtts)
	if len(rtts) > 0 {
		slices.Sort(rtts)
		n.WindowRTTMs = ms(rtts[len(rtts)/2])
	}
}

func (w *networkWatch) Stop() {
	w.WindowEnd() // a run that stops without its window's end
	n := w.db.network
	n.ProxyCPUS = (w.db.proxiesCPU() - w.from).Seconds()
	n.ProxyHeldMs = ms(w.db.shaper.Held().Sub(w.held[0]).RoundTrip())
	n.PoolerHeldMs = ms(w.db.poolerShaper.Held().Sub(w.held[1]).RoundTrip())
}

// probeGrace is how long the window's end waits for the probe's query in
// flight before cancelling it.
const probeGrace = time.Second

// probeRTT times a trivial query on c every result.RTTProbeEvery until end
// is closed (or ctx ends), and returns the times of those that completed:
// each committed a transaction in the run's database, which the result's
// commits count (Network.WindowRTTProbes).
func probeRTT(ctx context.Context, end <-chan struct{}, c target.Conn) []time.Duration {
	var rtts []time.Duration
	tick := time.NewTicker(result.RTTProbeEvery)
	defer tick.Stop()
	for {
		t0 := time.Now()
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			return rtts // the session broke (a fault) or was cut short: what was measured stands
		}
		rtts = append(rtts, time.Since(t0))
		select {
		case <-end:
			return rtts
		case <-tick.C:
		}
	}
}

// proxiesCPU is the CPU the network's proxies used so far.
func (d *Database) proxiesCPU() time.Duration { return d.shaper.CPU() + d.poolerShaper.CPU() }

// withoutProxyCPU is the client's CPU u without the network proxies'
// (n.ProxyCPUS), taken off its user and system time in proportion: a
// thread's CPU clock does not tell them apart.
func withoutProxyCPU(u runner.CPUUsage, n *result.Network) runner.CPUUsage {
	total := u.Total()
	if n == nil || n.ProxyCPUS <= 0 || total <= 0 {
		return u
	}
	keep := max(1-n.ProxyCPUS/total.Seconds(), 0)
	u.User = time.Duration(float64(u.User) * keep)
	u.Sys = time.Duration(float64(u.Sys) * keep)
	return u
}

// NoConnectTimeout as Spec.ConnectTimeout makes clients wait for a login
// as long as it takes, as pgbench (libpq without connect_timeout) does.
const NoConnectTimeout time.Duration = -1

// clientURL is u with the spec's connect timeout (connect_timeout, whole
// seconds, rounded up; 0 waits as long as it takes) unless u gives its
// own: ConnectTimeout 0 leaves u alone (the driver's default, 10 s). u is
// a postgres:// URL.
func (s Spec) clientURL(u string) string {
	switch {
	case s.ConnectTimeout == 0:
		return u
	case s.ConnectTimeout < 0:
		return target.WithParam(u, "connect_timeout", "0")
	}
	secs := (s.ConnectTimeout + time.Second - 1) / time.Second
	return target.WithParam(u, "connect_timeout", strconv.FormatInt(int64(secs), 10))
}
