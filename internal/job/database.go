package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/pooler/pgbouncer"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
)

// Database is an opened target and whatever was started for it.
type Database struct {
	target.Target
	URL     string // masked
	cluster *localdb.Cluster
	// server is the throwaway server txnbench started (the cluster, or a
	// MariaDB), which the server faults and supervision act on; nil when
	// none.
	server engine.Process
	// engine is the engine of what the clients reach (engine.Of), srv
	// the throwaway server it started, nil when none.
	engine engine.Engine
	srv    *engine.Server
	// poolers are the throwaway PgBouncers (and HAProxy) of --via
	// pgbouncer, nil without.
	poolers *pgbouncer.Poolers
	deaths  deaths // what supervision restarted (supervise.go)
	// adminURL is the admin console of a pooler given by URL (--via
	// URL), "" otherwise (the run's pooler.Watcher opens it, or the
	// console of each PgBouncer txnbench started).
	adminURL     string
	poolerName   string      // e.g. "PgBouncer 1.18.0"
	poolerDetail string      // e.g. "transaction pooling, 20 server connections"
	conn         target.Spec // what the clients connect to, with its password
	addr         target.Addr // connURL's server (a proxy's once shaped)
	// direct is the user's server (--db URL) itself when txnbench's
	// pooler or --network proxy fronts its clients: opened once, first,
	// so that one that cannot be reached fails in its own words before
	// a pooler waits on it; the invariant check goes through it when
	// the pooler is gone. nil otherwise.
	direct       target.Target
	load         target.Spec // on a throwaway server, the run database as its load role
	loadVerifier string      // the load role's SCRAM verifier, which txnbench's PgBouncer keeps
	// lender is the database whose cluster this one borrows (a study's
	// pooled cells on the cluster of its direct ones): it supervises and
	// stops the cluster; nil when this one owns what it runs on.
	lender *Database
	// shaper is the proxy making --network between the clients and
	// what they connect to (nil without), network what it measured.
	shaper       *faultproxy.Proxy
	poolerShaper *faultproxy.Proxy // --pooler-network's
	network      *result.Network
	tls          *result.TLS // what the clients' connections negotiated (noteTLS)
	// run is the context Open was given: once it is cancelled (an
	// interrupt), Close stops the poolers and the server at once.
	run context.Context
	// isolation is the level the clients' sessions run at (isolate),
	// the server's default when "".
	isolation target.Isolation
	// replicas is the primary and standbys of --replicas (server and
	// srv.Replicas too); cluster is its first primary. nil without
	// standbys.
	replicas *localdb.ReplicaSet
}

// isolate makes the clients' sessions of db run at s's --isolation, set
// on the target they connect to once it is the last one (after the
// poolers and the network proxy); a target opened for them later (the
// fault proxy's) is isolated alike (isolateTarget).
func isolate(s Spec, db *Database) error {
	db.isolation = s.DB.Isolation
	return db.isolateTarget(db.Target)
}

// isolateTarget makes t, a target the clients of db connect to, run at
// db's level: through a pooler with no session setting (see
// target.Isolator).
func (d *Database) isolateTarget(t target.Target) error {
	return target.Isolate(t, d.isolation, d.poolerName == "")
}

// Isolation is the level the clients' transactions run at and whether it
// is the server's default (no --isolation).
func (d *Database) Isolation() (l target.Isolation, byDefault bool) {
	if d.isolation != target.DefaultIsolation {
		return d.isolation, false
	}
	return d.Dialect().Isolation, true
}

// borrow opens a new database on d's cluster that leaves the cluster to
// d: its Close does not stop it, and d supervises it. One that txnbench's
// pooler or proxy will front is not opened here (see openServer).
func (d *Database) borrow(ctx context.Context, fronted bool) (*Database, error) {
	var t target.Target
	if !fronted {
		var err error
		if t, err = openSpec(ctx, d.conn); err != nil {
			return nil, err
		}
	}
	return &Database{Target: t, URL: d.URL, engine: d.engine, srv: d.srv, cluster: d.cluster, conn: d.conn, addr: d.addr, load: d.load, server: d.server, replicas: d.replicas, lender: d}, nil
}

// Close closes the target and stops what was started for it.
func (d *Database) Close() error {
	var err error
	if d.Target != nil { // nil: closed before its endpoint was opened (openServer)
		err = d.Target.Close()
	}
	if d.direct != nil {
		_ = d.direct.Close()
	}
	_ = d.shaper.Close()
	// Interrupted: stopped at once, since a safe shutdown waits (its
	// timeout, for a server that does not answer) for what is over.
	now := d.run != nil && d.run.Err() != nil
	if d.poolers != nil {
		stop := d.poolers.Stop
		if now {
			stop = d.poolers.StopNow
		}
		if serr := stop(); serr != nil && err == nil {
			err = serr
		}
	}
	_ = d.poolerShaper.Close() // after the poolers it carries
	if d.server != nil && d.lender == nil {
		stop := d.server.Stop
		if now {
			stop = d.server.StopNow
		}
		if serr := stop(); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// Cluster is the throwaway cluster behind the database, or nil.
func (d *Database) Cluster() *localdb.Cluster { return d.cluster }

// Open opens the spec's database, starting a throwaway cluster for
// temp-postgres (max_connections sized for conns server connections) and a
// throwaway PgBouncer in front of it with --via pgbouncer, sized for the
// spec's clients; clients then go through the pooler.
func Open(ctx context.Context, s Spec, conns int) (*Database, error) {
	db, err := open(ctx, s, conns)
	if db != nil {
		db.run = ctx
	}
	return db, err
}

// open is Open.
func open(ctx context.Context, s Spec, conns int) (*Database, error) {
	clients := s.Runner.Clients
	if v := s.DB.Via; v.Kind == target.ViaURL {
		// An existing pooler: clients connect to it, nothing is started.
		conn := v.Spec()
		via := s.clientURL(withExecMode(conn.URL))
		conn = conn.WithURL(via)
		var t target.Target
		var err error
		if s.Network == nil {
			t, err = openSpec(ctx, conn)
		} else { // its clients' one Target is through the --network proxy (shapeNetwork)
			err = reachable(ctx, via, v.Addr)
		}
		if err != nil {
			return nil, err
		}
		db := &Database{Target: t, engine: engine.Of(conn), conn: conn, addr: v.Addr, URL: target.MaskURL(via) + " (a pooler)", adminURL: v.Admin, poolerName: "pooler " + target.MaskURL(via)}
		if err := shapeOrClose(ctx, s, db); err != nil {
			return db, err
		}
		return db, isolateOrClose(s, db)
	}
	db, err := openServer(ctx, s, conns, s.DB.Via.Kind == target.ViaPgBouncer || s.Network != nil)
	if err != nil {
		return nil, err
	}
	if s.DB.Via.Kind == target.ViaPgBouncer {
		if err := startPoolers(ctx, s, db, clients); err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := shapeOrClose(ctx, s, db); err != nil {
		return nil, err
	}
	if err := pinParts(s, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, isolateOrClose(s, db)
}

// isolateOrClose is isolate, closing db when it fails.
func isolateOrClose(s Spec, db *Database) error {
	if err := isolate(s, db); err != nil {
		db.Close()
		return err
	}
	return nil
}

// pinParts places the server, the poolers and txnbench itself (its
// clients, and the network proxies it runs) on their --cpus.
func pinParts(s Spec, db *Database) error {
	if s.CPUs == nil {
		return nil
	}
	if db.cluster != nil {
		if err := s.CPUs.pin("server", db.cluster.PID()); err != nil {
			return err
		}
	}
	if db.poolers != nil {
		for _, pid := range db.poolers.PIDs() {
			if err := s.CPUs.pin("pooler", pid); err != nil {
				return err
			}
		}
		if p := db.poolers.Proxy(); p != nil {
			if err := s.CPUs.pin("pooler", p.PID()); err != nil {
				return err
			}
		}
	}
	return s.CPUs.pin("clients", os.Getpid())
}

// openServer opens the database itself, sized for conns connections:
// a throwaway server its engine starts, or the user's. A throwaway server
// that txnbench's own pooler or proxy will front (fronted) is not opened
// here: its clients' one Target is opened at the endpoint they reach
// (startPoolers, shapeNetwork). The user's server is opened first either
// way, and kept as Database.direct when fronted.
func openServer(ctx context.Context, s Spec, conns int, fronted bool) (*Database, error) {
	sp := s.DB
	eng := engine.Of(sp)
	if s.TLS && !(sp.Throwaway() && eng.Caps().TLS) {
		return nil, ErrTLSNeedsTempPostgres
	}
	if !sp.Throwaway() {
		open := sp
		open.Via = target.Via{}
		if sp.Remote() && eng.Caps().LibpqParams {
			open = open.WithURL(named(s.clientURL(sp.URL)))
		}
		t, err := openSpec(ctx, open)
		if err != nil {
			return nil, err
		}
		shown := target.MaskURL(sp.String())
		if sp.Temporary() {
			shown = "sqlite (a temporary file, removed at exit)"
		}
		db := &Database{Target: t, URL: shown, engine: eng, conn: open, addr: sp.Addr}
		if fronted {
			db.Target, db.direct = nil, t
		}
		return db, nil
	}
	srv, err := eng.Start(ctx, sp, engine.StartOptions{Conns: conns, Conf: s.settings(eng.Flags().Settings), Bin: s.PGBin, TLS: s.TLS, Log: s.Log, Name: sessionName,
		Replicas: s.Replication.Replicas, Replication: s.Replication.Mode,
	})
	if err != nil {
		return nil, err
	}
	conn := srv.Load
	if eng.Caps().LibpqParams { // its sessions are named, and time out, as on the user's server
		conn = conn.WithURL(s.clientURL(named(conn.URL)))
	}
	var t target.Target
	if !fronted {
		if t, err = openSpec(ctx, conn); err != nil {
			srv.Stop()
			return nil, err
		}
	}
	return &Database{Target: t, URL: srv.Shown, engine: eng, srv: srv, cluster: srv.Cluster, server: srv.Process, conn: conn, addr: localAddr(srv.Port), load: srv.Load, loadVerifier: srv.LoadVerifier, replicas: srv.Replicas}, nil
}

// ErrPgBouncerNeedsServer refuses --via pgbouncer in front of an embedded
// database.
var ErrPgBouncerNeedsServer = errors.New("--via pgbouncer needs a PostgreSQL server: use --db temp-postgres or a postgres:// URL")

// startPoolers starts the throwaway PgBouncers of --via pgbouncer in front
// of db's server (internal/pooler/pgbouncer), sized for clients, and opens
// the clients' one Target through them.
func startPoolers(ctx context.Context, s Spec, db *Database, clients int) error {
	if s.DB.Embedded() {
		return ErrPgBouncerNeedsServer
	}
	port, _ := strconv.Atoi(db.addr.Port)
	b := pgbouncer.Backend{Server: db.conn.WithURL(s.DB.URL), Host: db.addr.Host, Port: port} // the server's address: not yet behind a --network proxy
	if db.cluster != nil {                                                                    // the load role, whose sessions its engine named as the clients'
		b.Server, b.Verifier, b.TLS = db.load, db.loadVerifier, db.cluster.CA() // CA: nil without --tls
		if dir := db.cluster.SocketDir(); dir != "" {
			// PgBouncer sends the server's password in whatever form the
			// server asks for: on the cluster's Unix socket, in a directory
			// only its user enters, nothing else can ask, as a process of
			// another user could on the TCP port while the server is down.
			b.Host = dir
		}
	}
	if s.PoolerNetwork != nil { // over TCP through a shaped proxy instead
		var err error
		if b.Host, b.Port, err = shapePoolerNetwork(ctx, s, db, b.Server.URL, db.addr); err != nil {
			return err
		}
	}
	p, err := pgbouncer.Start(ctx, b, pgbouncer.Options{PgBouncer: s.DB.Via.PgBouncer, Sessions: clients + backgroundSessions(s.Workload)})
	if err != nil {
		return err
	}
	clientURL := s.clientURL(named(p.Clients.URL)) // named as the load role's sessions are (engine.StartOptions.Name): PgBouncer need not SET it
	if p.Mode != "session" {
		clientURL = withExecMode(clientURL)
	}
	conn := p.Clients.WithURL(clientURL)
	var t target.Target
	if s.Network == nil { // else the clients' one Target is through the --network proxy (shapeNetwork)
		if t, err = openSpec(ctx, conn); err != nil {
			p.Stop()
			return err
		}
	}
	db.Target, db.poolers, db.conn, db.addr = t, p, conn, localAddr(p.Port())
	db.poolerName, db.poolerDetail = p.Name, p.Detail
	db.URL += " via " + db.poolerName + " (" + db.poolerDetail + ")"
	s.log(fmt.Sprintf("%s ready on 127.0.0.1:%d in front of it", db.poolerName, p.Port()))
	return nil
}

// Poolers returns the PgBouncers txnbench started for --via pgbouncer (one,
// or the --poolers members, in the order HAProxy names them: pooler1,
// pooler2, ...), or nil. Each is a supervised process: to kill one on
// purpose use its Kill (supervision then leaves it down) and Restart it
// when it should come back.
func (d *Database) Poolers() []*localdb.Bouncer {
	if d.poolers == nil {
		return nil
	}
	return d.poolers.Members()
}

// Proxy returns the HAProxy txnbench started in front of its poolers
// (--poolers N with N > 1), or nil.
func (d *Database) Proxy() *localdb.HAProxy {
	if d.poolers == nil {
		return nil
	}
	return d.poolers.Proxy()
}

// PoolerTarget names the i-th of Poolers in a Fault: "pooler" when there
// is one, "pooler 2 of 3" in a fleet.
func (d *Database) PoolerTarget(i int) string {
	if n := len(d.Poolers()); n > 1 {
		return fmt.Sprintf("pooler %d of %d", i+1, n)
	}
	return "pooler"
}

// poolerPIDs are the processes of the poolers txnbench started.
func (d *Database) poolerPIDs() []int {
	if d.poolers == nil {
		return nil
	}
	return d.poolers.PIDs()
}

// watchPoolers is the watcher of one run's poolers (nil without one):
// the fleet's members and proxy, or the pooler given by URL, each console
// opened once for the run; the run closes it.
func (d *Database) watchPoolers() (*pooler.Watcher, error) {
	if d.poolers != nil {
		return d.poolers.Watch()
	}
	return pooler.Watch(pooler.Poolers{Name: d.poolerName, Detail: d.poolerDetail, AdminURL: d.adminURL})
}

// settings is the server settings the flag named flag gave
// (engine.Flags.Settings).
func (s Spec) settings(flag string) []string {
	switch flag {
	case "pg-conf":
		return s.PGConf
	case "mariadb-conf":
		return s.MariaDBConf
	}
	return nil
}

// localAddr is the address of a server or pooler txnbench started: they
// listen on 127.0.0.1.
func localAddr(port int) target.Addr {
	return target.Addr{Host: "127.0.0.1", Port: strconv.Itoa(port)}
}

// serverSpec is the run database on the server itself, bypassing any
// pooler (a throwaway server's as its own account), or zero when there is
// no server to ask (an embedded engine, or a pooler URL without --db).
func (d *Database) serverSpec(s Spec) target.Spec {
	if d.replicas != nil {
		return d.srv.Admin.WithURL(d.replicas.URL()) // whichever is the primary
	}
	if d.srv != nil {
		return d.srv.Admin
	}
	if s.DB.Remote() {
		return s.DB.WithURL(s.DB.URL)
	}
	return target.Spec{}
}

// Isolate prepares db for the next run of a study: a throwaway pooler is
// restarted, the server's statistics are reset where the dialect can, then
// it waits settle so the previous run's background work (checkpoints,
// vacuum) calms down.
func Isolate(ctx context.Context, db *Database, settle time.Duration) error {
	if db.poolers != nil {
		if err := db.poolers.Restart(ctx); err != nil {
			return fmt.Errorf("restarting PgBouncer: %w", err)
		}
	}
	if q := db.Dialect().Caps.StatsReset; q != "" {
		rctx, cancel := context.WithTimeout(ctx, probeWait)
		err := withConn(rctx, db, func(c target.Conn) error {
			_, err := c.Exec(rctx, q)
			return err
		})
		cancel()
		if err != nil && target.Classify(err) == errclass.Permission {
			return statsNotReset(ctx, settle)
		}
		if err != nil {
			return fmt.Errorf("resetting the server's statistics: %w", err)
		}
	}
	return runner.Sleep(ctx, settle)
}

// ErrStatsNotReset is Isolate's answer when the role may not reset the
// server's statistics (pg_stat_reset is for superusers unless granted):
// the database is otherwise isolated, and each run's telemetry compares
// its own snapshots from before and after, so the caller notes it and
// goes on.
var ErrStatsNotReset = errors.New("this role may not reset the server's statistics")

// statsNotReset settles as Isolate would, then reports ErrStatsNotReset.
func statsNotReset(ctx context.Context, settle time.Duration) error {
	if err := runner.Sleep(ctx, settle); err != nil {
		return err
	}
	return ErrStatsNotReset
}
