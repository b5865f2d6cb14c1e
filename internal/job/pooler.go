package job

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// poolerStats reads each pooler's SHOW STATS totals (adminURLs), summed
// over its databases (the admin console's own row left out); nil without
// a pooler, and a nil entry, with its error, for a console that cannot be
// read.
func (d *Database) poolerStats(ctx context.Context) ([]map[string]int64, []error) {
	urls := d.adminURLs()
	if urls == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, errs := make([]map[string]int64, len(urls)), make([]error, len(urls))
	for i, u := range urls {
		errs[i] = d.console(ctx, u, func() (err error) {
			out[i], err = pooler.Stats(ctx, u)
			return err
		})
	}
	return out, errs
}

// console runs read, a reading of the console named key (a pooler's admin
// URL, or proxyConsole) bounded by ctx, unless that console already did
// not answer in time since the last poolerSnapshot: then it returns that
// error at once, so a stuck pooler costs one deadline, not one per
// reading. A reading that times out on its own deadline (ctx still live)
// marks its console so.
func (d *Database) console(ctx context.Context, key string, read func() error) error {
	if err := d.silent[key]; err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := read()
	if err != nil && ctx.Err() == nil && target.Classify(err) == errclass.Timeout {
		if d.silent == nil {
			d.silent = map[string]error{}
		}
		d.silent[key] = err
	}
	return err
}

// proxyConsole is the proxy's key in Database.silent.
const proxyConsole = "HAProxy"

// silentErr is why something between the clients and the server (a
// pooler's console, the proxy) did not answer in time since the last
// poolerSnapshot, or nil when all did.
func (d *Database) silentErr() error {
	keys := slices.Sorted(maps.Keys(d.silent))
	if len(keys) == 0 {
		return nil
	}
	return d.silent[keys[0]]
}

// poolerSnapshot is the poolers' and the proxy's counters before a run.
type poolerSnapshot struct {
	stats    []map[string]int64  // each pooler's, as poolerStats
	pids     []int               // each own pooler's process
	proxy    []map[string]string // the proxy's per-server statistics
	proxyPID int
}

// poolerSnapshot reads what poolerResult subtracts.
// What did not answer before is asked again.
func (d *Database) poolerSnapshot(ctx context.Context) poolerSnapshot {
	d.silent = nil
	s := poolerSnapshot{pids: d.poolerPIDs()}
	s.stats, _ = d.poolerStats(ctx)
	s.proxy, _ = d.proxyStats(ctx)
	if p := d.Proxy(); p != nil {
		s.proxyPID = p.PID()
	}
	return s
}

// poolerPIDs are the processes of the poolers txnbench started.
func (d *Database) poolerPIDs() []int {
	var pids []int
	for _, b := range d.Poolers() {
		pids = append(pids, b.PID())
	}
	return pids
}

// poolerResult is what the pooler did during the run: its counters' change
// since before, and its pools at the end; with a fleet, each member's
// change, their sum, and the proxy's view.
func (d *Database) poolerResult(ctx context.Context, before poolerSnapshot) *result.Pooler {
	urls := d.adminURLs()
	if urls == nil {
		return nil
	}
	p := &result.Pooler{Name: d.poolerName, Detail: d.poolerDetail, Proxy: d.proxyResult(ctx, before)}
	after, errs := d.poolerStats(ctx)
	pids := d.poolerPIDs()
	var unread, restarted []string
	var why string
	for i, a := range after {
		name := fmt.Sprintf("pooler%d", i+1)
		if a == nil {
			unread = append(unread, name)
			why = cmp.Or(why, target.OneLine(errs[i].Error()))
			if len(urls) > 1 { // its line still shows what the proxy saw of it
				p.Members = append(p.Members, result.PoolerMember{Name: name, Note: "its admin console could not be read (" + target.OneLine(errs[i].Error()) + ")"})
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
		if len(urls) > 1 {
			p.Members = append(p.Members, m)
		}
	}
	switch {
	case len(urls) == 1 && p.Stats == nil:
		p.Note = "its admin console (SHOW STATS) could not be read (" + why + ")"
	case len(unread) > 0:
		p.Note = "the admin console (SHOW STATS) of " + strings.Join(unread, ", ") + " could not be read (" + why + "): the sums leave it out"
	}
	switch {
	case len(restarted) > 0 && len(urls) == 1:
		p.Note = restarted1Note
	case len(restarted) > 0:
		p.Note = strings.TrimPrefix(p.Note+"; "+strings.Join(restarted, ", ")+" restarted during the run: the sums count only what it did since", "; ")
	}
	for _, u := range urls {
		_ = d.console(ctx, u, func() error {
			pools, err := pooler.Pools(ctx, u)
			p.Pools = append(p.Pools, pools...)
			return err
		})
	}
	return p
}

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

// closePoolerServers makes each throwaway PgBouncer close its server
// connections and waits (at most a few seconds) until SHOW SERVERS lists
// none: a pooled backend that never goes idle for long does not publish
// its statistics until it exits. RECONNECT closes each server connection
// once it is released; the clients are gone, so all are. Nothing to do
// without a throwaway PgBouncer (a pooler given by URL is left alone).
func (d *Database) closePoolerServers(ctx context.Context) {
	if d.fleet == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// A proxy that does not answer holds its clients' connections open,
	// and so their server connections: waiting for those would be vain.
	d.proxyStats(ctx)
	wait := d.silent[proxyConsole] == nil
	for _, admin := range d.adminURLs() {
		err := d.console(ctx, admin, func() error {
			return pooler.Reconnect(ctx, admin)
		})
		for wait && err == nil && ctx.Err() == nil {
			var rows []map[string]string
			err = d.console(ctx, admin, func() (err error) {
				rows, err = pooler.Servers(ctx, admin)
				return err
			})
			if len(rows) == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// mendPooler corrects the pooler's run counters when it restarted during
// the run (its SHOW STATS totals start again from zero; poolerResult kept
// its new incarnation's): the telemetry's, which add up its incarnations,
// replace them when it has them. A fleet's stay the sum of its members'
// (each says whether it restarted). A pooler given by URL (byURL) may be
// a balancer's address in front of several, whose counters the samples
// see in turn: that reads as restarts too, and the note says so.
func mendPooler(p *result.Pooler, tel *result.Telemetry, byURL bool) {
	if p == nil || p.Stats == nil || len(p.Members) > 0 {
		return
	}
	if poolerRestarted(tel) && tel.Pooler != nil {
		p.Stats = tel.Pooler
		p.Note = "it restarted during the run: its counters are the sum over its incarnations in the window, less what an old one counted after its last sample"
		if byURL {
			p.Note = "its counters went back during the run: it restarted, or the address leads to several poolers (a load balancer) whose admin consoles the samples reached in turn; these are the sum of what the samples saw, so read them as approximate, or give --via a pooler's own address"
		}
	}
}

// poolerRestarted reports whether the telemetry saw the pooler restart.
func poolerRestarted(tel *result.Telemetry) bool {
	if tel != nil {
		for _, s := range tel.Series {
			if strings.Contains(s.Gap, telemetry.PoolerRestarted) {
				return true
			}
		}
	}
	return false
}
