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
	if db.Dialect().Embedded {
		return ErrPgBouncerNeedsServer
	}
	backend, verifier := s.DB.URL, ""
	if db.cluster != nil {
		nameServerSessions(ctx, db.Target)
		backend, verifier = db.loadURL, db.loadVerifier
	}
	u, err := url.Parse(backend)
	if err != nil {
		return fmt.Errorf("%w %s", target.ErrMalformedURL, target.MaskURL(backend))
	}
	host := db.addr.Host // the server's: not yet behind a --network proxy
	port, _ := strconv.Atoi(db.addr.Port)
	password := target.Password(backend) // the URL's, or PGPASSWORD's, ~/.pgpass's
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
	clientURL := s.clientURL(named(f.URL(dbname))) // named as the server's sessions are (nameServerSessions): PgBouncer need not SET it
	if pooler.Mode(pb.Mode) != "session" {
		clientURL = withExecMode(clientURL)
	}
	t, err := openTarget(ctx, clientURL)
	if err != nil {
		f.Stop()
		return err
	}
	db.Target.Close()
	db.Target, db.fleet, db.connURL, db.addr = t, f, clientURL, localAddr(f.Port())
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

// loadRole is the role txnbench's clients log in to its throwaway cluster
// as, directly or through its PgBouncer (and PgBouncer to the cluster): not
// a superuser, it owns the run database (so it creates the workloads'
// tables) and may reset its statistics; the telemetry, the faults and the
// workloads' background sessions go to the server directly as its
// superuser.
const loadRole = "txnbench_load"

// createLoadRole creates loadRole on db's throwaway cluster, with a
// password of its own, and returns the URL of the run database as it and
// the password's SCRAM verifier, which the server stores.
func createLoadRole(ctx context.Context, db *Database) (backend, verifier string, err error) {
	pw, verifier, err := localdb.NewLogin()
	if err != nil {
		return "", "", err
	}
	u, err := url.Parse(db.cluster.URL())
	if err != nil {
		return "", "", fmt.Errorf("%w %s", target.ErrMalformedURL, target.MaskURL(db.cluster.URL()))
	}
	err = withConn(ctx, db, func(c target.Conn) error {
		for _, q := range []string{
			// the server's login is SCRAM only: so is the stored password
			"SET password_encryption = 'scram-sha-256'",
			// its verifier, which PgBouncer's auth file holds too: see
			// localdb.BouncerOptions.Verifier
			"CREATE ROLE " + loadRole + " LOGIN NOSUPERUSER PASSWORD '" + verifier + "'", // base64 and $: nothing to quote
			"ALTER ROLE " + loadRole + " SET application_name = 'txnbench'",              // see nameServerSessions
			"ALTER DATABASE postgres OWNER TO " + loadRole,                               // the run database (Cluster.URL)
			"GRANT EXECUTE ON FUNCTION pg_stat_reset() TO " + loadRole,                   // Isolate
		} {
			if _, err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("creating the load role %s: %s: %w", loadRole, strings.Fields(q)[0], err)
			}
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	u.User = url.UserPassword(loadRole, pw)
	return u.String(), verifier, nil
}

// nameServerSessions makes the throwaway cluster name its sessions as
// txnbench's clients name theirs (application_name), so PgBouncer need not
// send a SET on each server connection it links a client to: that would
// be a transaction of its own in the server's xact_commit.
func nameServerSessions(ctx context.Context, t target.Target) {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	c, err := t.Connect(ctx)
	if err != nil {
		return
	}
	defer c.Close(ctx)
	c.Exec(ctx, "ALTER ROLE CURRENT_USER SET application_name = '"+sessionName+"'")
}
