package job

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
)

// CheckFaults checks that what each of s's faults acts on is there: a
// throwaway server (temp-postgres, temp-mariadb) for the server kinds, a
// throwaway PgBouncer (--via pgbouncer) for kill-pooler, a database server
// (not an embedded one) for terminate-backends and the network kinds;
// and that each fits in the window. Its errors name the fix.
func (s Spec) CheckFaults() error {
	sp := s.DB
	if err := fault.Check(s.Faults, s.Runner.Duration, sp.Via.PgBouncer.Poolers); err != nil {
		return err
	}
	embedded := sp.Embedded()
	for _, f := range s.Faults {
		switch f.Kind.Needs() {
		case fault.NeedsServer:
			if !sp.Throwaway() {
				return fmt.Errorf("--fault %s acts on a server txnbench started: use --db temp-postgres or temp-mariadb, or terminate-backends and the network faults on your own server", f)
			}
		case fault.NeedsPooler:
			if sp.Via.Kind != target.ViaPgBouncer {
				return fmt.Errorf("--fault %s acts on a PgBouncer txnbench started: add --via pgbouncer", f)
			}
		case fault.NeedsReplicas: // CheckReplication
		case fault.NeedsSQL:
			if embedded {
				return fmt.Errorf("--fault %s needs a database server: use --db temp-postgres, temp-mariadb or a server URL", f)
			}
		case fault.NeedsNetwork:
			// what the clients connect to, when a URL
			clients, addr := "", target.Addr{}
			switch {
			case sp.Via.Kind == target.ViaURL:
				clients, addr = sp.Via.URL, sp.Via.Addr
			case sp.Remote() && engine.Of(sp).Caps().Network:
				clients, addr = sp.URL, sp.Addr
			}
			if embedded && clients == "" {
				return fmt.Errorf("--fault %s puts a proxy in the network path, which an embedded database has not: use --db temp-postgres, temp-mariadb or a server URL", f)
			}
			if _, err := proxyBackend(clients, addr); clients != "" && err != nil {
				return fmt.Errorf("--fault %s: %w", f, err)
			}
		}
	}
	return nil
}

// faultRun is a run's faults: their schedule and, for the network
// kinds, the proxy the clients connect through. A nil faultRun (a run
// without faults) changes nothing.
type faultRun struct {
	*fault.Schedule
	proxy *faultproxy.Proxy // nil without network faults
	via   target.Target     // the target through the proxy
}

// startFaults makes the schedule of s's faults, injected in db, with the
// fault proxy in front of what the clients connect to when a network
// fault is scheduled; nil without faults. wctx is the run's wind-down
// (windDown): a restart a fault began gives up as it ends.
func startFaults(ctx, wctx context.Context, s Spec, db *Database) (*faultRun, error) {
	if len(s.Faults) == 0 {
		return nil, nil
	}
	f := &faultRun{}
	for _, sp := range s.Faults {
		if sp.Kind.Needs() == fault.NeedsNetwork && f.proxy == nil {
			if err := f.startProxy(ctx, db); err != nil {
				return nil, err
			}
			s.log("fault proxy on " + f.proxy.Addr() + " between the clients and " + db.URL)
		}
	}
	sessions := s.Conn.Strategy == "" || s.Conn.Strategy == connect.Session
	window := s.Runner.Duration + max(s.Runner.Grace, 30*time.Second) + time.Second
	f.Schedule = fault.New(s.Faults, db.injector(wctx, s, f.proxy), window, sessions)
	f.Log = s.Log
	return f, nil
}

// startProxy starts the fault proxy in front of the address the clients
// of db connect to and opens the target through it.
func (f *faultRun) startProxy(ctx context.Context, db *Database) error {
	backend, err := proxyBackend(db.conn.URL, db.addr)
	if err != nil {
		return err
	}
	ln, err := localdb.Listen()
	if err != nil {
		return err
	}
	p := faultproxy.Start(ln, backend)
	t, err := openSpec(ctx, db.conn.WithHost(p.Addr()))
	if err == nil {
		if err = db.isolateTarget(t); err != nil {
			t.Close()
		}
	}
	if err != nil {
		p.Close()
		return err
	}
	f.proxy, f.via = p, t
	return nil
}

// proxyBackend is the TCP address (host:port) of connURL's server addr
// that a proxy forwards to.
func proxyBackend(connURL string, addr target.Addr) (string, error) {
	if a := addr.TCP(); a != "" {
		return a, nil
	}
	return "", fmt.Errorf("network faults put a proxy in front of one TCP address; %s has none: give host:port in the URL (not a Unix socket or several hosts)", target.MaskURL(connURL))
}

// target is what the clients connect to: db, or the proxy in front of
// it, counting reconnects.
func (f *faultRun) target(db *Database) target.Target {
	switch {
	case f == nil:
		return db
	case f.via != nil:
		return fault.ConnectCounter{Target: f.via, S: f.Schedule}
	}
	return fault.ConnectCounter{Target: db, S: f.Schedule}
}

// finish puts the faults on the run's timeline, with what followed each,
// once the run (and its invariant check) is done, and stops the proxy.
// It waits for the faults within wctx: after an interrupt, a fault still
// under way (a server being restarted) is noted so, not waited for.
func (f *faultRun) finish(wctx context.Context, r **result.Result) {
	if f == nil {
		return
	}
	f.Wait(wctx)
	if f.via != nil {
		f.via.Close()
		f.proxy.Close()
	}
	if *r != nil { // beside any fault supervision found, in time order
		faults := f.Faults(wctx, *r) // a killed pooler's counters are noted by the pooler's snapshot, as any restart
		(*r).Faults = append((*r).Faults, faults...)
		sort.SliceStable((*r).Faults, func(i, j int) bool { return (*r).Faults[i].AtS < (*r).Faults[j].AtS })
	}
}

// injector does the faults on what db started or reaches, and on the
// network through proxy. Its restarts go on past the window's end (the
// invariant check needs the server) until wctx, the run's wind-down, ends.
func (d *Database) injector(wctx context.Context, s Spec, proxy *faultproxy.Proxy) fault.Injector {
	kills := 0 // kill-pooler faults so far: each takes the next pooler
	return func(ctx context.Context, f fault.Spec) (string, string) {
		// CheckFaults refused a fault without what it acts on; this only
		// keeps a new way to open a database from ending in a panic
		switch needs := f.Kind.Needs(); {
		case needs == fault.NeedsServer && d.server == nil:
			return "", "not injected: no server txnbench started"
		case needs == fault.NeedsPooler && len(d.Poolers()) == 0:
			return "", "not injected: no pooler txnbench started"
		case needs == fault.NeedsNetwork && proxy == nil:
			return "", "not injected: no fault proxy"
		case needs == fault.NeedsReplicas && d.replicas == nil:
			return "", "not injected: no standby txnbench started"
		}
		switch f.Kind {
		case fault.KillServer, fault.RestartServer:
			sig := syscall.SIGKILL
			if f.Kind == fault.RestartServer {
				sig = syscall.SIGQUIT // the postmaster's immediate shutdown
			}
			if err := d.server.Kill(sig); err != nil {
				return "server", err.Error()
			}
			runner.Sleep(ctx, f.Delay) // ends early with the window
			return "server", restart(wctx, d.server)
		case fault.HangServer:
			resume, err := d.server.Pause()
			if err != nil {
				return "server", err.Error()
			}
			runner.Sleep(ctx, f.For)
			resume()
			return "server", ""
		case fault.TerminateBackends:
			n, err := terminateRunSessions(ctx, d.serverSpec(s), d)
			if err != nil {
				return "server", "terminating the run's sessions failed: " + errclass.FirstLine(err)
			}
			return "server", fmt.Sprintf("%d sessions terminated", n)
		case fault.KillPooler:
			ps := d.Poolers()
			b := ps[kills%len(ps)]
			what := d.PoolerTarget(kills % len(ps))
			kills++
			if err := b.Kill(syscall.SIGKILL); err != nil {
				return what, err.Error()
			}
			if f.Restart {
				runner.Sleep(ctx, f.Delay)
				return what, restart(wctx, b)
			}
			<-ctx.Done()
			if note := restart(wctx, b); note != "" {
				return what, note
			}
			return what, "left down until the window ended, then restarted for the invariant check"
		case fault.Latency:
			proxy.SetLatency(f.Delay)
			if f.For > 0 {
				runner.Sleep(ctx, f.For)
			} else {
				<-ctx.Done()
			}
			proxy.SetLatency(0)
			return "network", ""
		case fault.Blackhole:
			lift := proxy.Blackhole()
			runner.Sleep(ctx, f.For)
			lift()
			return "network", ""
		case fault.Reset:
			return "network", fmt.Sprintf("%d connections reset", proxy.Reset())
		case fault.Failover, fault.Switchover:
			return "server", d.failover(wctx, f.Kind == fault.Switchover)
		}
		return "", "unknown fault"
	}
}

// restart starts a killed server or pooler again, whatever the window
// does meanwhile, until wctx (the run's wind-down) ends: after an
// interrupt, within its budget. It returns a note when that failed.
func restart(wctx context.Context, p interface{ Restart(context.Context) error }) string {
	ctx, cancel := context.WithTimeout(wctx, 2*time.Minute)
	defer cancel()
	if err := p.Restart(ctx); err != nil {
		if wctx.Err() != nil {
			return fault.UnderWay
		}
		return "restarting it failed: " + errclass.FirstLine(err)
	}
	return ""
}

// terminateRunSessions ends the run's client sessions, as its engine
// does (engine.Engine.TerminateSessions), on the server (as its own
// account when txnbench started it).
func terminateRunSessions(ctx context.Context, server target.Spec, d *Database) (int64, error) {
	return d.engine.TerminateSessions(ctx, engine.Sessions{Server: server, Clients: d.Target, Conn: d.conn, Name: nameIn(d.conn.URL)})
}

// sessionName is what this process's client sessions are called on the
// server (application_name): txnbench, the process id and the host, so
// that terminate-backends ends this run's sessions and no other
// txnbench's on the same database. It is letters, digits and -_.@ (as
// safe in a URL as in the server), within the server's 63 bytes.
var sessionName = func() string {
	host, _ := os.Hostname()
	b := []byte(fmt.Sprintf("txnbench-%d@%s", os.Getpid(), host))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.@", c) >= 0) {
			b[i] = '_'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return string(b)
}()

// named is the server URL u with this process's sessionName, unless u
// names its sessions itself.
func named(u string) string {
	return target.WithParam(u, "application_name", sessionName)
}

// nameIn is the application_name the sessions opened with URL u have.
func nameIn(u string) string {
	if p, err := url.Parse(u); err == nil && p.Query().Has("application_name") {
		return p.Query().Get("application_name")
	}
	return sessionName
}
