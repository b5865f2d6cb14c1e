package job

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Spec is one run, as the command line gave it.
type Spec struct {
	// DB is the database, and what the clients connect through (DB.Via).
	DB     target.Spec
	PGBin  string   // where initdb and postgres are, for temp-postgres
	PGConf []string // key=value server settings for temp-postgres
	// MariaDBConf holds name=value server settings for temp-mariadb.
	MariaDBConf []string
	Name        string // workload name
	Workload    workload.Workload
	Runner      runner.Config
	Conn        connect.Options // how clients get connections
	// ConnectTimeout is how long a client's login may take: 0 is the
	// driver's default (10 s), NoConnectTimeout waits as long as it
	// takes. A connect_timeout in the URL wins.
	ConnectTimeout time.Duration
	// Network is the network between the clients and what they connect
	// to (--network); nil: none.
	Network *faultproxy.Shape
	// PoolerNetwork is the network between txnbench's PgBouncers and the
	// server (--pooler-network); nil: none.
	PoolerNetwork *faultproxy.Shape
	// CPUs is where the server, the poolers and txnbench's clients run
	// (--cpus); nil: anywhere.
	CPUs CPUs
	// TLS makes the throwaway server and PgBouncers serve TLS with
	// certificates of a CA made for the run, which clients verify
	// (--tls); temp-postgres only.
	TLS bool
	// Telemetry is what is watched beside the run (on unless Off).
	Telemetry Telemetry
	Fresh     bool         // drop and recreate the workload's schema
	Faults    []fault.Spec // injected on their schedule (--fault)
	Args      []string     // the command line, recorded with passwords masked
	Version   string       // txnbench's version
	// Log receives status messages (starting a server, loading data).
	Log func(string)
	// Shard names the run this process is a part of, when
	// Runner.Shard splits it (see Shard).
	Shard Shard
	// Replication is temp-postgres's standbys (replicas.go).
	Replication Replication

	// Live, when set, is given the run so far after each interval, as a
	// Result (see partial), from a goroutine of its own; the last call
	// returns before Run does.
	Live func(*result.Result)
}

// ServerConnections is how many connections the server must accept for
// this run: a shared pool or a PgBouncer caps them below the client count;
// the workload's background work adds its own sessions.
func (s Spec) ServerConnections() int {
	return s.clientConnections() + backgroundSessions(s.Workload)
}

func (s Spec) clientConnections() int {
	switch {
	case s.DB.Via.Kind == target.ViaPgBouncer:
		return pooler.Size(s.DB.Via.PgBouncer.Size) * max(s.DB.Via.PgBouncer.Poolers, 1)
	case s.Conn.Strategy == connect.Pool:
		return s.Conn.Pool.Max
	}
	return s.Runner.Clients
}

// withExecMode makes pgx describe statements and send each one whole
// (Parse, Bind, Execute in one round trip, unnamed), which any pooler in
// transaction mode carries: PgBouncer before 1.21 cannot keep named
// prepared statements. A mode given in the URL wins.
func withExecMode(u string) string {
	return target.WithParam(u, "default_query_exec_mode", "cache_describe")
}

func (s Spec) log(msg string) {
	if s.Log != nil {
		s.Log(msg)
	}
}

// Init creates the workload's schema and initial data in db, one txnbench
// at a time (see lockSchema).
func Init(ctx context.Context, s Spec, db *Database) (created bool, err error) {
	err = withConn(ctx, db, func(c target.Conn) (err error) {
		created, err = initOn(ctx, s, db, c)
		return err
	})
	return created, err
}

// initOn is Init on session c.
func initOn(ctx context.Context, s Spec, db *Database, c target.Conn) (created bool, err error) {
	unlock, err := lockSchema(ctx, s, db, c)
	if err != nil {
		return false, err
	}
	defer unlock()
	level, _ := db.Isolation()
	return s.Workload.Init(ctx, c, db.Dialect(), workload.InitOptions{Fresh: s.Fresh, Seed: s.Runner.Seed, Clients: s.Runner.RunClients(), Isolation: level, Progress: s.log, Connect: db.Connect})
}

// lockSchema serialises Init among txnbench processes on the same
// database (target.LockSchema), saying so while another holds the lock.
// Through a pooler there is no lock: a transaction pooler does not keep the
// session an advisory lock belongs to.
func lockSchema(ctx context.Context, s Spec, db *Database, c target.Conn) (unlock func(), err error) {
	if db.poolerName != "" {
		return func() {}, nil
	}
	return target.LockSchema(ctx, db.Target, c, s.Name, func(lock string) {
		s.log(fmt.Sprintf("waiting for another txnbench creating the %s schema (%s)", s.Name, lock))
	})
}

// withConn runs f on a new session that is closed afterwards.
func withConn(ctx context.Context, db *Database, f func(target.Conn) error) error {
	c, err := db.Connect(ctx)
	if err != nil {
		return target.ConnectError(db.URL, err)
	}
	defer c.Close(context.Background())
	return f(c)
}

func assemble(s Spec, db *Database, out *runner.Outcome) *result.Result {
	d := db.Dialect()
	host, _ := os.Hostname()
	rc := s.Runner
	cpu := withoutProxyCPU(out.CPU, db.network) // the client's own
	r := &result.Result{
		Format:   result.Format,
		Tool:     result.Tool{Version: s.Version, Go: runtime.Version()},
		Workload: s.Name,
		Settings: workload.Settings(s.Workload),
		Config: result.Config{
			DB: db.URL, Database: s.DB.Form(), Clients: rc.Clients, Iterations: rc.Iterations, Seed: rc.Seed,
			MaxTries: rc.MaxTries, PGConf: maskAll(s.PGConf), Args: maskAll(s.Args), Conn: cmp.Or(s.Conn.Strategy, connect.Session),
		},
		Server:      result.Server{Dialect: d.Name, Version: d.Version, Banner: d.Banner, Embedded: d.Embedded},
		Machine:     result.Machine{Hostname: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()},
		Started:     out.Started,
		Ended:       out.Ended,
		MeasuredS:   out.Measured.Seconds(),
		Interrupted: out.Interrupted,
		Stalled:     out.Stalled,
		Ops:         out.Ops,
		Intervals:   out.Intervals,
		Client: result.Client{
			CPUUserS: cpu.User.Seconds(), CPUSysS: cpu.Sys.Seconds(),
			MaxRSSMB: float64(out.CPU.MaxRSSKB) / 1024,
		},
	}
	if c, ok := s.Workload.(workload.CycleCounter); ok {
		r.CycleUnit = c.CycleUnit()
	}
	if n, ok := s.Workload.(workload.Noter); ok {
		r.Notes = n.Notes()
	}
	if f, ok := s.Workload.(workload.Figurer); ok {
		r.Figures = f.Figures(r)
	}
	if s.Conn.Strategy == connect.Pool {
		r.Config.Pool = &s.Conn.Pool
	}
	r.Config.Via = target.MaskURL(s.DB.Via.String())
	r.Config.Topology = db.topology()
	if l, byDefault := db.Isolation(); l != target.DefaultIsolation {
		r.Config.Isolation, r.Config.IsolationDefault = string(l), byDefault
	}
	if db.network != nil { // a copy: the next run on db measures its own proxy CPU
		n := *db.network
		r.Network = &n
	}
	r.TLS = db.tls
	r.Notes = append(r.Notes, s.CPUs.Notes(db.poolers != nil)...)
	if rc.Duration > 0 {
		r.Config.Duration = rc.Duration.String()
	}
	if rc.Ramp > 0 {
		r.Config.Ramp = rc.Ramp.String()
	}
	r.Config.Rate = rc.Rate
	if rc.LatencyLimit > 0 {
		r.Config.LatencyLimit = rc.LatencyLimit.String()
	}
	r.AbortedClients = out.Aborted
	if rc.Warmup > 0 {
		r.Config.Warmup = rc.Warmup.String()
	}
	r.Behind = result.ScheduleBehind(r)
	if c := r.Op(result.CycleOp); c != nil && c.Count > 0 {
		r.Client.CPUPerCycleMS = cpu.Total().Seconds() * 1000 / float64(c.Count)
	}
	if txns, _ := r.Transactions(); txns > 0 {
		r.Client.AllocPerTxnKB = float64(out.CPU.AllocBytes) / 1024 / float64(txns)
	}
	return r
}

// maskAll masks passwords in each string (for what a Result records).
func maskAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = target.MaskURL(s)
	}
	return out
}
