// Package engine is the home of each database engine's server side:
// what "PostgreSQL", "MariaDB" or "SQLite" means beyond its driver. Each
// engine is one package under internal/engine that registers one Engine
// from its init; internal/engine/engines imports them all. Callers ask
// the engine of a spec (Of) what it can do, never which one it is.
package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// Engine is one database engine's server side. Its --db forms are
// target's kinds whose Spec.Engine is its Name (a throwaway form of a new
// engine is registered with target.RegisterThrowaway).
type Engine interface {
	// Name is the engine's name, as target.Spec.Engine gives it.
	Name() string
	// Flags names the flags of its throwaway server.
	Flags() Flags
	// Caps says what txnbench can do with it beyond its driver.
	Caps() Caps
	// CheckBin checks the directory of its throwaway server's binaries
	// (Flags.Bin) before anything starts.
	CheckBin(dir string) error
	// Start starts a throwaway server for sp (sp.Throwaway()) sized and
	// set up by o, with the run database and its load role made.
	Start(ctx context.Context, sp target.Spec, o StartOptions) (*Server, error)
	// Sampler reads its server's counters for the telemetry; nil when it
	// has none to read (an embedded engine).
	Sampler() telemetry.Sampler
	// TerminateSessions ends the run's client sessions (the faults'
	// terminate-backends) and returns how many it ended.
	TerminateSessions(ctx context.Context, s Sessions) (int64, error)
}

// Flags are the command-line flags of an engine's throwaway server, ""
// for one it has not.
type Flags struct {
	Settings string // its name=value server settings: "pg-conf", "mariadb-conf"
	Bin      string // the directory of its binaries: "pg-bin"
}

// Caps is what txnbench does with an engine beyond its driver.
type Caps struct {
	// TLS: its throwaway server serves TLS with --tls (a CA of the run's).
	TLS bool
	// PgBouncer: PgBouncer can stand between its clients and its server
	// (--via pgbouncer, a pooler's URL).
	PgBouncer bool
	// Network: its clients' path can be shaped and cut (--network, the
	// network faults' proxy).
	Network bool
	// LibpqParams: its URLs take libpq's session parameters
	// (application_name, which names the run's sessions, and
	// connect_timeout).
	LibpqParams bool
	// RunTable: it keeps the run table (txnbench_shards) that split runs
	// and runs sharing tables on one server coordinate through.
	RunTable bool
	// Replicas: its throwaway server can be started with streaming
	// standbys (--replicas, StartOptions.Replicas), which the failover
	// faults promote.
	Replicas bool
}

// StartOptions set up a throwaway server.
type StartOptions struct {
	// Conns is how many connections the run makes to it: the server
	// accepts 20 more (max_connections) unless Conf sets its own.
	Conns int
	// Conf holds its name=value settings (Flags.Settings).
	Conf []string
	// Bin is the directory of its binaries (Flags.Bin); "" finds them.
	Bin string
	// TLS makes it serve TLS (Caps.TLS).
	TLS bool
	// Name is what the clients' sessions are called on the server
	// (application_name): the load role's own, so that a pooler's server
	// connections are named alike without a SET of their own.
	Name string
	// Replicas is how many standbys to start beside the primary
	// (Caps.Replicas), replicating in Replication; 0 for one server.
	Replicas    int
	Replication localdb.Replication
	// Log receives status messages.
	Log func(string)
}

// Say gives msg to o.Log, when set.
func (o StartOptions) Say(msg string) {
	if o.Log != nil {
		o.Log(msg)
	}
}

// Process is a throwaway server as localdb runs it: what the server
// faults and supervision act on.
type Process interface {
	Kill(sig syscall.Signal) error
	Pause() (resume func(), err error)
	Restart(ctx context.Context) error
	Supervise(onDeath func(localdb.Event))
	PID() int
	Stop() error
	StopNow() error
}

// Server is a throwaway server an engine started.
type Server struct {
	Process
	// Cluster is PostgreSQL's cluster (the PgBouncers' backend, its CA,
	// its socket), nil for another engine's server; with standbys, the
	// first primary.
	Cluster *localdb.Cluster
	// Replicas is the primary and its standbys (StartOptions.Replicas),
	// which is then the Process too; nil for one server.
	Replicas *localdb.ReplicaSet
	// Admin is the run database as the server's own account: the
	// telemetry, the faults and the checks of the server use it. With
	// standbys its URL names every member and follows the primary
	// (target_session_attrs=read-write).
	Admin target.Spec
	// Load is the run database as the load role, which owns the
	// workloads' data: every client session logs in as it. With standbys
	// its URL follows the primary, as Admin's does.
	Load target.Spec
	// LoadVerifier is the load role's SCRAM verifier, which txnbench's
	// PgBouncer keeps ("" where none is).
	LoadVerifier string
	// Shown is the server as a result names it ("temp-postgres (URL)"),
	// its password masked.
	Shown string
	// Port is where it listens on 127.0.0.1.
	Port int
	// PrepareTelemetry readies the server for the telemetry and returns
	// the note to give when statement times cannot be read ("" for the
	// telemetry's own); nil when there is nothing to do.
	PrepareTelemetry func(ctx context.Context) (statementsFix string)
}

// Sessions are the run's client sessions, for TerminateSessions.
type Sessions struct {
	// Server is the server itself as its own account (Server.Admin), or
	// the user's --db; zero when there is none to ask.
	Server target.Spec
	// Clients is the target the clients connect to, Conn the spec they
	// connect with.
	Clients target.Target
	Conn    target.Spec
	// Name is what the clients' sessions are called on the server.
	Name string
}

// ErrNoServer is Start's error for an engine with no throwaway server.
var ErrNoServer = errors.New("this engine has no throwaway server")

var registry struct {
	sync.RWMutex
	byName map[string]Engine
}

// Register makes e the engine of the specs whose Spec.Engine is its
// Name. An engine package calls it from its init.
func Register(e Engine) {
	registry.Lock()
	defer registry.Unlock()
	if registry.byName == nil {
		registry.byName = map[string]Engine{}
	}
	if _, dup := registry.byName[e.Name()]; dup {
		panic("engine: " + e.Name() + " registered twice")
	}
	registry.byName[e.Name()] = e
}

// Of is the engine of sp. Without its package linked (see
// internal/engine/engines) it is one that can do nothing and says so.
func Of(sp target.Spec) Engine {
	registry.RLock()
	e := registry.byName[sp.Engine()]
	registry.RUnlock()
	if e == nil {
		return missing(sp.Engine())
	}
	return e
}

// All are the registered engines, by name.
func All() []Engine {
	registry.RLock()
	defer registry.RUnlock()
	var out []Engine
	for _, e := range registry.byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// missing is the engine of a name nothing registered.
type missing string

func (m missing) err() error {
	return fmt.Errorf("no engine %q: import internal/engine/engines", string(m))
}
func (m missing) Name() string             { return string(m) }
func (missing) Flags() Flags               { return Flags{} }
func (missing) Caps() Caps                 { return Caps{} }
func (missing) CheckBin(string) error      { return nil }
func (missing) Sampler() telemetry.Sampler { return nil }
func (m missing) Start(context.Context, target.Spec, StartOptions) (*Server, error) {
	return nil, m.err()
}
func (m missing) TerminateSessions(context.Context, Sessions) (int64, error) { return 0, m.err() }

// MaxConnections is the max_connections setting a throwaway server gets
// for conns connections (least its engine's default, 20 to spare),
// unless conf sets one (under any of names).
func MaxConnections(conf []string, conns, least int, names ...string) []string {
	for _, kv := range conf {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(names, strings.TrimSpace(k)) {
			return conf
		}
	}
	return append([]string{fmt.Sprintf("%s=%d", names[0], max(least, conns+20))}, conf...)
}
