// Package pgbouncer starts the throwaway PgBouncers of --via pgbouncer in
// front of a PostgreSQL server: one, or --poolers N of them behind a
// throwaway HAProxy (a localdb.Fleet), sized for a run's sessions with
// internal/pooler's defaults, and says what the clients connect to (a
// target.Spec), how a result names them and which pooler.Watcher
// watches them. The job calls Start and opens the clients' one Target at
// Poolers.Clients; the processes are internal/localdb's.
package pgbouncer

import (
	"cmp"
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/target"
)

// Backend is the server the PgBouncers log in to.
type Backend struct {
	// Server is the run database as the clients' role logs in to it: its
	// user is PgBouncer's login and the clients', its database (the user's
	// name when it names none, as libpq's default) the clients'; its
	// password is the one a connection to it finds (target.Password).
	Server target.Spec
	// Host and Port are where PgBouncer reaches the server: its address,
	// its Unix socket's directory, or a shaped proxy's address.
	Host string
	Port int
	// Verifier is the role's SCRAM verifier, which the server stores too:
	// PgBouncer then checks the clients' logins with it and logs in with
	// their keys (SCRAM pass-through, see localdb.BouncerOptions), "" to
	// log in with the password.
	Verifier string
	// TLS is the server's CA when it serves TLS (--tls), nil otherwise.
	TLS *localdb.CA
}

// Options are the PgBouncers' settings.
type Options struct {
	target.PgBouncer
	// Sessions is how many client sessions the run opens at most (its
	// clients and their background work): max_client_conn follows
	// (pooler.MaxClientConn).
	Sessions int
}

// Poolers are the PgBouncers (and the HAProxy in front of several)
// started for a run.
type Poolers struct {
	*localdb.Fleet
	// Clients is the run database through them as the clients reach it,
	// with PgBouncer's own password for their role.
	Clients target.Spec
	// Name and Detail name them in a result: "PgBouncer 1.18.0",
	// "transaction pooling, 20 server connections".
	Name, Detail string
	// Mode is their pool mode, Mode(o.Mode).
	Mode string
}

// Start starts the PgBouncers of o in front of b.
func Start(ctx context.Context, b Backend, o Options) (*Poolers, error) {
	n := max(o.Poolers, 1)
	mode, size := pooler.Mode(o.Mode), pooler.Size(o.Size)
	password := target.Password(b.Server) // the URL's, or PGPASSWORD's, ~/.pgpass's
	bo := localdb.BouncerOptions{
		Bin: o.Bin, BackendHost: b.Host, BackendPort: b.Port,
		BackendUser: b.Server.User, BackendPassword: password,
		PoolMode: o.Mode, PoolSize: o.Size, MaxClientConn: pooler.MaxClientConn(o.Sessions),
		TLS: b.TLS,
	}
	if b.Verifier != "" {
		// The role's own login, checked by PgBouncer with the verifier
		// the server stores too (SCRAM pass-through): no key derivation
		// per login on PgBouncer's one thread.
		bo.Password, bo.Verifier, bo.BackendPassword = password, b.Verifier, ""
	}
	f, err := localdb.StartFleet(ctx, localdb.FleetOptions{Size: n, Bouncer: bo})
	if err != nil {
		return nil, err
	}
	p := &Poolers{Fleet: f, Mode: mode}
	p.Clients = b.Server.WithURL(f.URL(cmp.Or(b.Server.Database, b.Server.User))) // PgBouncer speaks the server's protocol
	m := f.Members()[0]
	p.Name = "PgBouncer " + m.Version()
	p.Detail = fmt.Sprintf("%s pooling, %d server connections", mode, size)
	if h := f.Proxy(); h != nil {
		p.Name = fmt.Sprintf("PgBouncer %s x%d behind HAProxy %s, %s", m.Version(), n, h.Version(), localdb.HAProxyBalance)
		p.Detail = fmt.Sprintf("%s pooling, %d server connections each", mode, size)
	}
	return p, nil
}

// PIDs are the PgBouncers' processes.
func (p *Poolers) PIDs() []int {
	var pids []int
	for _, m := range p.Members() {
		pids = append(pids, m.PID())
	}
	return pids
}

// Watch is the run's watcher of them: their counters, consoles (each
// member's, opened once for the run) and restarts (see pooler.Watcher).
func (p *Poolers) Watch() (*pooler.Watcher, error) {
	w := pooler.Poolers{Name: p.Name, Detail: p.Detail}
	for _, m := range p.Members() {
		w.Members = append(w.Members, m)
	}
	if h := p.Proxy(); h != nil {
		w.Proxy, w.ProxyName, w.ProxyDetail = h, "HAProxy "+h.Version(), localdb.HAProxyBalance+", "+localdb.HAProxyCheck
	}
	return pooler.Watch(w)
}
