package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pooler"
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
		PoolMode: pb.Mode, PoolSize: pb.Size, MaxClientConn: pooler.MaxClientConn(clients + backgroundSessions(s.Workload)),
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

// poolerPIDs are the processes of the poolers txnbench started.
func (d *Database) poolerPIDs() []int {
	var pids []int
	for _, b := range d.Poolers() {
		pids = append(pids, b.PID())
	}
	return pids
}

// watchPoolers is the watcher of one run's poolers (nil without one):
// the fleet's members and proxy, or the pooler given by URL.
func (d *Database) watchPoolers() *pooler.Watcher {
	p := pooler.Poolers{Name: d.poolerName, Detail: d.poolerDetail, AdminURL: d.adminURL}
	if d.fleet != nil {
		for _, m := range d.fleet.Members() {
			p.Members = append(p.Members, m)
		}
		if h := d.fleet.Proxy(); h != nil {
			p.Proxy, p.ProxyName, p.ProxyDetail = h, "HAProxy "+h.Version(), localdb.HAProxyBalance+", "+localdb.HAProxyCheck
		}
	}
	return pooler.Watch(p)
}
