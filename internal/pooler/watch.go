package pooler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
)

// Member is a pooler txnbench started (localdb.Bouncer is one): its admin
// console's URL (the same after a restart: it restarts on its port) and
// its process, which is another after a restart.
type Member interface {
	AdminURL() string
	PID() int
}

// Balancer is the proxy txnbench started in front of its poolers
// (localdb.HAProxy is one): its per-server statistics and its process.
type Balancer interface {
	Stats(ctx context.Context) ([]map[string]string, error)
	PID() int
}

// Poolers is what stands between a run's clients and its server.
type Poolers struct {
	Name   string // e.g. "PgBouncer 1.18.0"
	Detail string // e.g. "transaction pooling, 20 server connections"
	// Members are the poolers txnbench started, in the order the proxy
	// names them (pooler1, pooler2, ...); nil for a pooler given by URL.
	Members []Member
	// AdminURL is the console of a pooler given by URL (no Members).
	AdminURL string
	// Proxy is the balancer in front of Members; nil without one.
	Proxy       Balancer
	ProxyName   string // e.g. "HAProxy 2.6.12"
	ProxyDetail string // its balance and check
}

// Watcher watches a run's poolers: one per run, read by the job (the
// counters before and after, the consoles that did not answer) and by the
// telemetry (its samples, and the restarts they saw as Restart events).
// A nil Watcher is a run without a pooler: its methods do nothing.
type Watcher struct {
	p Poolers
	// admins are each pooler's console (Members' order, or the one given
	// by URL), opened once by Watch.
	admins []Admin

	mu sync.Mutex
	// silent holds, by console (a pooler's Name, or proxyConsole),
	// why it did not answer in time since the last Snapshot.
	silent   map[string]error
	restarts []Restart
	before   snapshot
}

// Restart is a pooler's restart that the telemetry's samples saw: its
// counters went down between two readings.
type Restart struct {
	Pooler string  // "the pooler", or "pooler2" in a fleet
	After  float64 // seconds into the telemetry: its last reading before
	By     float64 // and its first reading after
}

// Watch is the watcher of a run's poolers, nil when there are none. It
// opens each pooler's admin console (Open), once for the run: the job's
// readings and the telemetry's go through them. A URL that cannot be read
// is its error; Close ends the consoles' sessions.
func Watch(p Poolers) (*Watcher, error) {
	urls := []string{p.AdminURL}
	if len(p.Members) > 0 {
		urls = urls[:0]
		for _, m := range p.Members {
			urls = append(urls, m.AdminURL())
		}
	} else if p.AdminURL == "" {
		return nil, nil
	}
	w := &Watcher{p: p}
	for _, u := range urls {
		a, err := Open(u)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.admins = append(w.admins, a)
	}
	return w, nil
}

// Close ends the sessions of the poolers' consoles.
func (w *Watcher) Close() {
	if w == nil {
		return
	}
	for _, a := range w.admins {
		a.Close()
	}
}

// Admins are the admin consoles of every pooler: the members' or the one
// given by URL.
func (w *Watcher) Admins() []Admin {
	if w == nil {
		return nil
	}
	return w.admins
}

// Name is the console's name in notes: "the pooler", or "pooler2" (the
// i-th, from 0) when there are several.
func (w *Watcher) Name(i int) string {
	if len(w.Admins()) > 1 {
		return fmt.Sprintf("pooler%d", i+1)
	}
	return "the pooler"
}

// Restarted records a restart the telemetry saw.
func (w *Watcher) Restarted(r Restart) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.restarts = append(w.restarts, r)
}

// Restarts are the restarts the telemetry saw during the run.
func (w *Watcher) Restarts() []Restart {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.restarts)
}

// timedOut reports whether err is a reading that did not answer in time.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// console runs read, a reading of the console named key bounded by ctx,
// unless that console already did not answer in time since the last
// Snapshot: then it returns that error at once, so a stuck pooler costs
// one deadline, not one per reading. A reading that times out on its own
// deadline (ctx still live) marks its console so.
func (w *Watcher) console(ctx context.Context, key string, read func() error) error {
	w.mu.Lock()
	err := w.silent[key]
	w.mu.Unlock()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err = read()
	if err != nil && ctx.Err() == nil && timedOut(err) {
		w.mu.Lock()
		if w.silent == nil {
			w.silent = map[string]error{}
		}
		w.silent[key] = err
		w.mu.Unlock()
	}
	return err
}

// proxyConsole is the proxy's key in silent.
const proxyConsole = "HAProxy"

// Silent is why something between the clients and the server (a pooler's
// console, the proxy) did not answer in time since the last Snapshot, or
// nil when all did.
func (w *Watcher) Silent() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := slices.Sorted(maps.Keys(w.silent))
	if len(keys) == 0 {
		return nil
	}
	return w.silent[keys[0]]
}

// stats reads each pooler's SHOW STATS totals, a nil entry, with its
// error, for a console that cannot be read.
func (w *Watcher) stats(ctx context.Context) ([]map[string]int64, []error) {
	admins := w.Admins()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, errs := make([]map[string]int64, len(admins)), make([]error, len(admins))
	for i, a := range admins {
		errs[i] = w.console(ctx, w.Name(i), func() (err error) {
			out[i], err = Stats(ctx, a)
			return err
		})
	}
	return out, errs
}

// proxyStats reads the proxy's per-server statistics (nil without a
// proxy), within ConsoleWait as a pooler's console.
func (w *Watcher) proxyStats(ctx context.Context) (rows []map[string]string, err error) {
	p := w.p.Proxy
	if p == nil {
		return nil, nil
	}
	sctx, cancel := context.WithTimeout(ctx, ConsoleWait)
	defer cancel()
	err = w.console(ctx, proxyConsole, func() (err error) {
		rows, err = p.Stats(sctx)
		return err
	})
	return rows, err
}

// pids are the members' processes.
func (w *Watcher) pids() []int {
	var pids []int
	for _, m := range w.p.Members {
		pids = append(pids, m.PID())
	}
	return pids
}

// snapshot is the poolers' and the proxy's counters before a run.
type snapshot struct {
	stats    []map[string]int64  // each pooler's, as stats
	pids     []int               // each member's process
	proxy    []map[string]string // the proxy's per-server statistics
	proxyPID int
}

// Snapshot reads what Result subtracts, as the run starts. What did not
// answer before is asked again.
func (w *Watcher) Snapshot(ctx context.Context) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.silent = nil
	w.mu.Unlock()
	s := snapshot{pids: w.pids()}
	s.stats, _ = w.stats(ctx)
	s.proxy, _ = w.proxyStats(ctx)
	if w.p.Proxy != nil {
		s.proxyPID = w.p.Proxy.PID()
	}
	w.before = s
}

// Result is what the poolers did during the run: their counters' change
// since the Snapshot, and their pools at the end; with several, each
// member's change, their sum, and the proxy's view. tel is the run's
// telemetry (nil without), committed the transactions the clients
// completed through the poolers.
func (w *Watcher) Result(ctx context.Context, tel *result.Telemetry, committed int64) *result.Pooler {
	if w == nil {
		return nil
	}
	n := len(w.Admins())
	before := w.before
	p := &result.Pooler{Name: w.p.Name, Detail: w.p.Detail, Proxy: w.proxyResult(ctx)}
	after, errs := w.stats(ctx)
	pids := w.pids()
	var unread, restarted []string
	var why string
	for i, a := range after {
		name := fmt.Sprintf("pooler%d", i+1)
		if a == nil {
			unread = append(unread, name)
			why = cmp.Or(why, oneLine(errs[i]))
			if n > 1 { // its line still shows what the proxy saw of it
				p.Members = append(p.Members, result.PoolerMember{Name: name, Note: "its admin console could not be read (" + oneLine(errs[i]) + ")"})
			}
			continue
		}
		m := result.PoolerMember{Name: name, Stats: map[string]int64{}}
		var b map[string]int64
		if i < len(before.stats) {
			b = before.stats[i]
		}
		for k, v := range a {
			m.Stats[k] = v - b[k]
		}
		// A pooler that restarted counts again from zero.
		again := i < len(pids) && i < len(before.pids) && pids[i] != before.pids[i]
		if mendMember(&m, a, again) {
			restarted = append(restarted, name)
		}
		if p.Stats == nil {
			p.Stats = map[string]int64{}
		}
		for k, v := range m.Stats {
			p.Stats[k] += v
		}
		if n > 1 {
			p.Members = append(p.Members, m)
		}
	}
	switch {
	case n == 1 && p.Stats == nil:
		p.Note = "its admin console (SHOW STATS) could not be read (" + why + ")"
	case len(unread) > 0:
		p.Note = "the admin console (SHOW STATS) of " + strings.Join(unread, ", ") + " could not be read (" + why + "): the sums leave it out"
	}
	switch {
	case len(restarted) > 0 && n == 1:
		p.Note = restarted1Note
	case len(restarted) > 0:
		p.Note = strings.TrimPrefix(p.Note+"; "+strings.Join(restarted, ", ")+" restarted during the run: the sums count only what it did since", "; ")
	}
	for i, a := range w.Admins() {
		_ = w.console(ctx, w.Name(i), func() error {
			pools, err := Pools(ctx, a)
			p.Pools = append(p.Pools, pools...)
			return err
		})
	}
	w.mend(p, tel)
	w.notePartial(p, committed)
	return p
}

// oneLine is err's text on one line.
func oneLine(err error) string { return errclass.OneLine(err.Error()) }

// restarted1Note is the note of a pooler that restarted during the run,
// when only its new incarnation's counters are known.
const restarted1Note = "it restarted during the run: its counters started again from zero, so these are only its new incarnation's"

// mendMember makes a pooler's counters its new incarnation's when it
// restarted during the run (again, or its counters went down: they began
// again from zero), saying so, and reports whether it did.
func mendMember(m *result.PoolerMember, after map[string]int64, again bool) bool {
	for _, v := range m.Stats {
		again = again || v < 0
	}
	if again {
		m.Stats = after
		m.Note = restarted1Note
	}
	return again
}

// mend corrects the pooler's run counters when the telemetry saw it
// restart during the run (its SHOW STATS totals start again from zero;
// Result kept its new incarnation's): the telemetry's, which add up its
// incarnations, replace them when it has them. A fleet's stay the sum of
// its members' (each says whether it restarted). A pooler given by URL
// may be a balancer's address in front of several, whose counters the
// samples see in turn: that reads as restarts too, and the note says so.
func (w *Watcher) mend(p *result.Pooler, tel *result.Telemetry) {
	if p.Stats == nil || len(p.Members) > 0 || tel == nil || tel.Pooler == nil || len(w.Restarts()) == 0 {
		return
	}
	p.Stats = tel.Pooler
	p.Note = "it restarted during the run: its counters are the sum over its incarnations in the window, less what an old one counted after its last sample"
	if len(w.p.Members) == 0 {
		p.Note = "its counters went back during the run: it restarted, or the address leads to several poolers (a load balancer) whose admin consoles the samples reached in turn; these are the sum of what the samples saw, so read them as approximate, or give --via a pooler's own address"
	}
}

// notePartial says so when a pooler given by URL counted clearly fewer
// transactions than the clients completed through it (less than 90%):
// the address leads to several poolers (a load balancer such as HAProxy
// in front of a fleet), and its admin console reached one of them, maybe
// not the same one before and after the run (so its samples may look like
// restarts too).
func (w *Watcher) notePartial(p *result.Pooler, committed int64) {
	if len(w.p.Members) > 0 || p.Stats == nil {
		return
	}
	if n := p.Stats["total_xact_count"]; n < committed*9/10 {
		note := fmt.Sprintf("it counted %d transactions, fewer than the clients' %d: the address likely leads to several poolers (a load balancer?) and these are the counters of the ones its admin console reached (which look like restarts when they alternate); give --via a pooler's own address to read its counters, or let txnbench start the fleet (--poolers)", n, committed)
		p.Note = strings.TrimPrefix(p.Note+"; "+note, "; ")
	}
}

// proxyResult is the proxy's view of the run: each server's counters'
// change since the Snapshot, and its status now; only its new
// incarnation's counts when it restarted.
func (w *Watcher) proxyResult(ctx context.Context) *result.Proxy {
	p := w.p.Proxy
	if p == nil {
		return nil
	}
	restarted := p.PID() != w.before.proxyPID
	before := w.before.proxy
	if restarted {
		before = nil
	}
	r := &result.Proxy{Name: w.p.ProxyName, Detail: w.p.ProxyDetail}
	after, err := w.proxyStats(ctx)
	if err != nil {
		r.Note = "its statistics could not be read: " + errclass.FirstLine(err)
		return r
	}
	servers, again := ProxyServers(before, after)
	r.Servers, restarted = servers, restarted || again
	if restarted {
		r.Note = "it restarted during the run: its counts are since then"
	}
	return r
}

// CloseServers makes each pooler txnbench started close its server
// connections and waits (at most a few seconds) until SHOW SERVERS lists
// none: a pooled backend that never goes idle for long does not publish
// its statistics until it exits. RECONNECT closes each server connection
// once it is released; the clients are gone, so all are. Nothing to do
// for a pooler given by URL (it is left alone).
func (w *Watcher) CloseServers(ctx context.Context) {
	if w == nil || len(w.p.Members) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// A proxy that does not answer holds its clients' connections open,
	// and so their server connections: waiting for those would be vain.
	w.proxyStats(ctx)
	w.mu.Lock()
	wait := w.silent[proxyConsole] == nil
	w.mu.Unlock()
	for i, admin := range w.Admins() {
		key := w.Name(i)
		err := w.console(ctx, key, func() error {
			return Reconnect(ctx, admin)
		})
		for wait && err == nil && ctx.Err() == nil {
			var rows []map[string]string
			err = w.console(ctx, key, func() (err error) {
				rows, err = Servers(ctx, admin)
				return err
			})
			if len(rows) == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
