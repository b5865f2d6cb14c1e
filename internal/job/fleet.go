package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// ErrPgBouncerNeedsServer refuses --via pgbouncer in front of an embedded
// database.
var ErrPgBouncerNeedsServer = errors.New("--via pgbouncer needs a PostgreSQL server: use --db temp-postgres or a postgres:// URL")

// startPoolers starts the throwaway PgBouncers of --via pgbouncer in front
// of db's server, sized for clients (--poolers N: N of them behind a
// throwaway HAProxy), and makes db's target the fleet's one address.
func startPoolers(ctx context.Context, s Spec, db *Database, clients int) error {
	if s.DB.Embedded() {
		return ErrPgBouncerNeedsServer
	}
	backend, verifier := s.DB.URL, ""
	if db.cluster != nil { // the load role, whose sessions its engine named as the clients'
		backend, verifier = db.loadURL, db.loadVerifier
	}
	u, err := url.Parse(backend)
	if err != nil {
		return fmt.Errorf("%w %s", target.ErrMalformedURL, target.MaskURL(backend))
	}
	host := db.addr.Host // the server's: not yet behind a --network proxy
	port, _ := strconv.Atoi(db.addr.Port)
	password := target.Password(db.conn.WithURL(backend)) // the URL's, or PGPASSWORD's, ~/.pgpass's
	dbname := cmp.Or(strings.TrimPrefix(u.Path, "/"), u.User.Username())
	if db.cluster != nil && db.cluster.SocketDir() != "" {
		// PgBouncer sends the server's password in whatever form the
		// server asks for: on the cluster's Unix socket, in a directory
		// only its user enters, nothing else can ask, as a process of
		// another user could on the TCP port while the server is down.
		host = db.cluster.SocketDir()
	}
	if s.PoolerNetwork != nil { // over TCP through a shaped proxy instead
		if host, port, err = shapePoolerNetwork(ctx, s, db, backend, db.addr); err != nil {
			return err
		}
	}
	pb := s.DB.Via.PgBouncer
	n := max(pb.Poolers, 1)
	bo := localdb.BouncerOptions{
		Bin: pb.Bin, BackendHost: host, BackendPort: port,
		BackendUser: u.User.Username(), BackendPassword: password,
		PoolMode: pb.Mode, PoolSize: pb.Size, MaxClientConn: poolerMaxClientConn(clients + backgroundSessions(s.Workload)),
	}
	if db.cluster != nil {
		bo.TLS = db.cluster.CA() // nil without --tls
	}
	if verifier != "" {
		// The load role's own login, checked by PgBouncer with the
		// verifier the server stores too (SCRAM pass-through): no
		// key derivation per login on PgBouncer's one thread.
		bo.Password, bo.Verifier, bo.BackendPassword = password, verifier, ""
	}
	f, err := localdb.StartFleet(ctx, localdb.FleetOptions{Size: n, Bouncer: bo})
	if err != nil {
		return err
	}
	clientURL := s.clientURL(named(f.URL(dbname))) // named as the load role's sessions are (engine.StartOptions.Name): PgBouncer need not SET it
	if pooler.Mode(pb.Mode) != "session" {
		clientURL = withExecMode(clientURL)
	}
	conn := db.conn.WithURL(clientURL) // PgBouncer speaks the server's protocol
	t, err := openSpec(ctx, conn)
	if err != nil {
		f.Stop()
		return err
	}
	if db.Target != nil { // the user's server, opened to reach it first
		db.Target.Close()
	}
	db.Target, db.fleet, db.conn, db.addr = t, f, conn, localAddr(f.Port())
	m := f.Members()[0]
	mode, size := pooler.Mode(pb.Mode), pooler.Size(pb.Size)
	db.poolerName = "PgBouncer " + m.Version()
	db.poolerDetail = fmt.Sprintf("%s pooling, %d server connections", mode, size)
	if p := f.Proxy(); p != nil {
		db.poolerName = fmt.Sprintf("PgBouncer %s x%d behind HAProxy %s, %s", m.Version(), n, p.Version(), localdb.HAProxyBalance)
		db.poolerDetail = fmt.Sprintf("%s pooling, %d server connections each", mode, size)
	} else {
		db.adminURL = m.AdminURL() // one console: the telemetry reads it too
	}
	db.URL += " via " + db.poolerName + " (" + db.poolerDetail + ")"
	s.log(fmt.Sprintf("%s ready on 127.0.0.1:%d in front of it", db.poolerName, f.Port()))
	return nil
}

// Poolers returns the PgBouncers txnbench started for --via pgbouncer (one,
// or the --poolers members, in the order HAProxy names them: pooler1,
// pooler2, ...), or nil. Each is a supervised process: to kill one on
// purpose use its Kill (supervision then leaves it down) and Restart it
// when it should come back.
func (d *Database) Poolers() []*localdb.Bouncer {
	if d.fleet == nil {
		return nil
	}
	return d.fleet.Members()
}

// Proxy returns the HAProxy txnbench started in front of its poolers
// (--poolers N with N > 1), or nil.
func (d *Database) Proxy() *localdb.HAProxy {
	if d.fleet == nil {
		return nil
	}
	return d.fleet.Proxy()
}

// PoolerTarget names the i-th of Poolers in a Fault: "pooler" when there
// is one, "pooler 2 of 3" in a fleet.
func (d *Database) PoolerTarget(i int) string {
	if n := len(d.Poolers()); n > 1 {
		return fmt.Sprintf("pooler %d of %d", i+1, n)
	}
	return "pooler"
}

// adminURLs are the admin consoles of every pooler: the fleet's members'
// or the one given by URL.
func (d *Database) adminURLs() []string {
	if d.fleet != nil {
		var out []string
		for _, b := range d.fleet.Members() {
			out = append(out, b.AdminURL())
		}
		return out
	}
	if d.adminURL != "" {
		return []string{d.adminURL}
	}
	return nil
}

// proxyStats reads the proxy's per-server statistics (nil without a
// proxy), within pooler.ConsoleWait as a pooler's console.
func (d *Database) proxyStats(ctx context.Context) (rows []map[string]string, err error) {
	p := d.Proxy()
	if p == nil {
		return nil, nil
	}
	sctx, cancel := context.WithTimeout(ctx, pooler.ConsoleWait)
	defer cancel()
	err = d.console(ctx, proxyConsole, func() (err error) {
		rows, err = p.Stats(sctx)
		return err
	})
	return rows, err
}

// proxyResult is the proxy's view of the run: each server's counters'
// change since before, and its status now; only its new incarnation's
// counts when it restarted.
func (d *Database) proxyResult(ctx context.Context, snap poolerSnapshot) *result.Proxy {
	p := d.Proxy()
	if p == nil {
		return nil
	}
	restarted := p.PID() != snap.proxyPID
	before := snap.proxy
	if restarted {
		before = nil
	}
	r := &result.Proxy{Name: "HAProxy " + p.Version(), Detail: localdb.HAProxyBalance + ", " + localdb.HAProxyCheck}
	after, err := d.proxyStats(ctx)
	if err != nil {
		r.Note = "its statistics could not be read: " + errclass.FirstLine(err)
		return r
	}
	servers, again := pooler.ProxyServers(before, after)
	r.Servers, restarted = servers, restarted || again
	if restarted {
		r.Note = "it restarted during the run: its counts are since then"
	}
	return r
}

// notePartialPooler says so when a pooler given by URL counted clearly
// fewer transactions than the clients completed through it (less than
// 90%): the address leads to several poolers (a load balancer such as
// HAProxy in front of a fleet), and its admin console reached one of them,
// maybe not the same one before and after the run (so its samples may look
// like restarts too).
func notePartialPooler(r *result.Result, db *Database) {
	p := r.Pooler
	if p == nil || db.fleet != nil || p.Stats == nil {
		return
	}
	ok, _ := r.Transactions()
	if n := p.Stats["total_xact_count"]; n < ok*9/10 {
		note := fmt.Sprintf("it counted %d transactions, fewer than the clients' %d: the address likely leads to several poolers (a load balancer?) and these are the counters of the ones its admin console reached (which look like restarts when they alternate); give --via a pooler's own address to read its counters, or let txnbench start the fleet (--poolers)", n, ok)
		p.Note = strings.TrimPrefix(p.Note+"; "+note, "; ")
	}
}
