package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// TempPostgres is the --db value that starts a throwaway cluster.
const TempPostgres = target.TempPostgresSpec

// TempMariaDB is the --db value that starts a throwaway MariaDB.
const TempMariaDB = target.TempMariaDBSpec

// Spec is one run, as the command line gave it.
type Spec struct {
	DB     string   // "" (temporary SQLite), sqlite:PATH, temp-postgres, temp-mariadb or a URL
	PGBin  string   // where initdb and postgres are, for temp-postgres
	PGConf []string // key=value server settings for temp-postgres
	// MariaDBConf holds name=value server settings for temp-mariadb.
	MariaDBConf []string
	Name        string // workload name
	Workload    workload.Workload
	Runner      runner.Config
	Conn        connect.Options // how clients get connections
	Pooler      Pooler          // a connection pooler between clients and the server
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
}

// ServerConnections is how many connections the server must accept for
// this run: a shared pool or a PgBouncer caps them below the client count;
// the workload's background work adds its own sessions.
func (s Spec) ServerConnections() int {
	return s.clientConnections() + backgroundSessions(s.Workload)
}

func (s Spec) clientConnections() int {
	switch {
	case s.Pooler.Via == ViaPgBouncer:
		return cmp.Or(s.Pooler.Size, 20) * max(s.Pooler.Poolers, 1)
	case s.Conn.Strategy == connect.Pool:
		return s.Conn.Pool.Max
	}
	return s.Runner.Clients
}

// Pooler is what sits between the clients and the server.
type Pooler struct {
	Via  string // Direct, ViaPgBouncer (a throwaway one) or the URL of an existing pooler
	Mode string // the throwaway PgBouncer's pool_mode
	Size int    // its default_pool_size
	Bin  string // its binary; "" = find it
	// Poolers is how many throwaway PgBouncers (behind a throwaway
	// HAProxy when more than one); 0 means 1.
	Poolers int
}

// The --via values besides a URL.
const (
	Direct       = "direct"
	ViaPgBouncer = "pgbouncer"
)

// Database is an opened target and whatever was started for it.
type Database struct {
	target.Target
	URL     string // masked
	cluster *localdb.Cluster
	// server is the throwaway server txnbench started (the cluster, or a
	// MariaDB), which the server faults and supervision act on; nil when
	// none.
	server localServer
	fleet  *localdb.Fleet // the throwaway PgBouncers (and HAProxy) of --via pgbouncer
	deaths deaths         // what supervision restarted (supervise.go)
	// adminURL is the pooler's admin console, "" without a pooler or
	// with a fleet of several (adminURLs has each member's).
	adminURL     string
	poolerName   string // e.g. "PgBouncer 1.18.0"
	poolerDetail string // e.g. "transaction pooling, 20 server connections"
	connURL      string // what the clients connect to, with its password
	loadURL      string // on a throwaway cluster, the run database as loadRole
	loadVerifier string // loadRole's SCRAM verifier, which txnbench's PgBouncer keeps
	// lender is the database whose cluster this one borrows (a study's
	// pooled cells on the cluster of its direct ones): it supervises and
	// stops the cluster; nil when this one owns what it runs on.
	lender *Database
	// silent holds, by console (see console), why a pooler's console or
	// the proxy did not answer in time since the last poolerSnapshot.
	silent map[string]error
	// shaper is the proxy making --network between the clients and
	// what they connect to (nil without), network what it measured.
	shaper       *faultproxy.Proxy
	poolerShaper *faultproxy.Proxy // --pooler-network's
	network      *result.Network
}

// borrow opens a new database on d's cluster that leaves the cluster to
// d: its Close does not stop it, and d supervises it.
func (d *Database) borrow(ctx context.Context) (*Database, error) {
	t, err := openTarget(ctx, d.connURL)
	if err != nil {
		return nil, err
	}
	return &Database{Target: t, URL: d.URL, cluster: d.cluster, connURL: d.connURL, loadURL: d.loadURL, server: d.server, lender: d}, nil
}

// Close closes the target and stops what was started for it.
func (d *Database) Close() error {
	err := d.Target.Close()
	_ = d.shaper.Close()
	if d.fleet != nil {
		if serr := d.fleet.Stop(); serr != nil && err == nil {
			err = serr
		}
	}
	_ = d.poolerShaper.Close() // after the poolers it carries
	if d.server != nil && d.lender == nil {
		if serr := d.server.Stop(); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// localServer is a throwaway server as localdb runs it.
type localServer interface {
	Kill(sig syscall.Signal) error
	Pause() (resume func(), err error)
	Restart(ctx context.Context) error
	Supervise(onDeath func(localdb.Event))
	PID() int
	Stop() error
}

// Cluster is the throwaway cluster behind the database, or nil.
func (d *Database) Cluster() *localdb.Cluster { return d.cluster }

// Open opens the spec's database, starting a throwaway cluster for
// temp-postgres (max_connections sized for conns server connections) and a
// throwaway PgBouncer in front of it with --via pgbouncer, sized for the
// spec's clients; clients then go through the pooler.
func Open(ctx context.Context, s Spec, conns int) (*Database, error) {
	clients := s.Runner.Clients
	via := s.Pooler.Via
	if target.IsServerURL(via) {
		// An existing pooler: clients connect to it, nothing is started.
		via = s.clientURL(withExecMode(via))
		t, err := openTarget(ctx, via)
		if err != nil {
			return nil, err
		}
		db := &Database{Target: t, connURL: via, URL: target.MaskURL(via) + " (a pooler)", adminURL: adminURL(via), poolerName: "pooler " + target.MaskURL(via)}
		return db, shapeOrClose(ctx, s, db)
	}
	db, err := openServer(ctx, s, conns)
	if err != nil {
		return nil, err
	}
	if via == ViaPgBouncer {
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
	return db, nil
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
	if db.fleet != nil {
		for _, m := range db.fleet.Members() {
			if err := s.CPUs.pin("pooler", m.PID()); err != nil {
				return err
			}
		}
		if p := db.fleet.Proxy(); p != nil {
			if err := s.CPUs.pin("pooler", p.PID()); err != nil {
				return err
			}
		}
	}
	return s.CPUs.pin("clients", os.Getpid())
}

// withExecMode makes pgx describe statements and send each one whole
// (Parse, Bind, Execute in one round trip, unnamed), which any pooler in
// transaction mode carries: PgBouncer before 1.21 cannot keep named
// prepared statements. A mode given in the URL wins.
func withExecMode(u string) string {
	return target.WithParam(u, "default_query_exec_mode", "cache_describe")
}

// adminURL is PgBouncer's admin console on the same address, with the
// URL's require_auth if it has one.
func adminURL(pooler string) string {
	u, err := url.Parse(pooler)
	if err != nil {
		return ""
	}
	u.Path = "/pgbouncer"
	q := url.Values{}
	if ra := u.Query().Get("require_auth"); ra != "" {
		q.Set("require_auth", ra)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// openServer opens the database itself, sized for conns connections.
func openServer(ctx context.Context, s Spec, conns int) (*Database, error) {
	sp, err := target.ParseSpec(s.DB)
	if err != nil {
		return nil, err
	}
	if sp.Kind == target.TempMariaDB {
		return openMariaDB(ctx, s, conns)
	}
	if sp.Kind != target.TempPostgres {
		u := s.clientURL(s.DB)
		if sp.Kind == target.ServerURL {
			u = named(u)
		}
		t, err := openTarget(ctx, u)
		if err != nil {
			return nil, err
		}
		shown := target.MaskURL(s.DB)
		if sp.Kind == target.SQLiteTemp {
			shown = "sqlite (a temporary file, removed at exit)"
		}
		return &Database{Target: t, URL: shown, connURL: u}, nil
	}
	conf := s.PGConf
	if !hasSetting(conf, "max_connections") {
		conf = append([]string{"max_connections=" + strconv.Itoa(max(100, conns+20))}, conf...)
	}
	s.log("starting a throwaway PostgreSQL")
	started := time.Now()
	bin := s.PGBin
	if bin == "" && sp.Version != "" {
		if bin, err = localdb.FindVersion(sp.Version); err != nil {
			return nil, err
		}
	}
	cl, err := localdb.Start(ctx, localdb.Options{BinDir: bin, Conf: conf})
	if err != nil {
		return nil, err
	}
	db, err := openAsLoadRole(ctx, s, cl)
	if err != nil {
		cl.Stop()
		return nil, err
	}
	s.log(fmt.Sprintf("PostgreSQL %s ready on 127.0.0.1:%d in %.1f s", cl.Version(), cl.Port(), time.Since(started).Seconds()))
	return db, nil
}

// openAsLoadRole creates loadRole on the throwaway cluster cl, as its
// superuser, and opens the run database as loadRole: the workloads' data
// and every client session, direct or through a pooler, are the load
// role's; the telemetry and the faults go to the server as its superuser
// (serverURL).
func openAsLoadRole(ctx context.Context, s Spec, cl *localdb.Cluster) (*Database, error) {
	su, err := openTarget(ctx, named(cl.URL()))
	if err != nil {
		return nil, err
	}
	loadURL, verifier, err := createLoadRole(ctx, &Database{Target: su, cluster: cl})
	su.Close()
	if err != nil {
		return nil, err
	}
	t, err := openTarget(ctx, s.clientURL(named(loadURL)))
	if err != nil {
		return nil, err
	}
	return &Database{Target: t, URL: TempPostgres + " (" + target.MaskURL(cl.URL()) + ")", cluster: cl, server: cl, connURL: s.clientURL(named(loadURL)), loadURL: loadURL, loadVerifier: verifier}, nil
}

// openMariaDB starts a throwaway MariaDB sized for conns connections and
// opens it.
func openMariaDB(ctx context.Context, s Spec, conns int) (*Database, error) {
	conf := s.MariaDBConf
	if !hasSetting(conf, "max_connections") && !hasSetting(conf, "max-connections") {
		conf = append([]string{"max_connections=" + strconv.Itoa(max(151, conns+20))}, conf...)
	}
	s.log("starting a throwaway MariaDB")
	started := time.Now()
	m, err := localdb.StartMariaDB(ctx, localdb.MariaDBOptions{Conf: conf})
	if err != nil {
		return nil, err
	}
	t, err := openTarget(ctx, m.URL())
	if err != nil {
		m.Stop()
		return nil, err
	}
	s.log(fmt.Sprintf("MariaDB %s ready on 127.0.0.1:%d in %.1f s", m.Version(), m.Port(), time.Since(started).Seconds()))
	return &Database{Target: t, URL: TempMariaDB + " (" + target.MaskURL(m.URL()) + ")", server: m, connURL: m.URL()}, nil
}

func hasSetting(conf []string, key string) bool {
	for _, kv := range conf {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
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
		unlock, err := lockSchema(ctx, s, db, c)
		if err != nil {
			return err
		}
		defer unlock()
		created, err = s.Workload.Init(ctx, c, db.Dialect(), workload.InitOptions{Fresh: s.Fresh, Seed: s.Runner.Seed, Clients: s.Runner.RunClients(), Progress: s.log, Connect: db.Connect})
		return err
	})
	return created, err
}

// Run initialises the workload if needed, runs it, checks the invariants
// and returns the Result. After an interrupt (ctx cancelled) the Result
// holds what was measured and Interrupted is set.
func Run(ctx context.Context, s Spec, db *Database) (r *result.Result, err error) {
	if s.sharded() {
		s.Fresh = s.Fresh && s.Runner.Shard.Index == 0 // shard 0 alone loads
		if err := awaitLoad(ctx, s, db); err != nil {
			return nil, err
		}
	}
	created, err := Init(ctx, s, db)
	if err != nil {
		return nil, err
	}
	if !created {
		s.log("using the existing " + s.Name + " schema and data (--reinit to start fresh)")
	}
	// The run is in the run table before Start counts anything, so that
	// a run writing the same tables at the same time is known (share.go).
	var m *member
	var began time.Time
	switch {
	case s.sharded():
		if began, err = serverNow(ctx, db); err != nil {
			return nil, err
		}
	case s.registers(db):
		if m, err = registerRun(ctx, s, db); err != nil {
			s.log("not registered in the run table: runs writing the same tables at the same time cannot be told apart (" + firstLine(err.Error()) + ")")
			m = nil
		}
		defer func() { m.end(s, db) }()
	}
	if err := withConn(ctx, db, func(c target.Conn) error { return s.Workload.Start(ctx, c) }); err != nil {
		return nil, err
	}
	if m != nil {
		m.beat(s, db)
		defer m.stop()
	}
	faults, err := startFaults(ctx, s, db)
	if err != nil {
		return nil, err
	}
	defer faults.finish(&r)
	tel := startTelemetry(ctx, s, db)
	conns, err := connect.New(ctx, faults.target(db), s.Conn)
	if err != nil {
		if tel != nil {
			tel.Finish(ctx)
		}
		return nil, err
	}
	stopBackground, err := startBackground(ctx, s, db)
	if err != nil {
		conns.Close()
		if tel != nil {
			tel.Finish(ctx)
		}
		return nil, err
	}
	before := db.poolerSnapshot(ctx)
	db.supervise()
	window := &windowClock{}
	rc := s.Runner
	rc.Observers = append([]runner.Observer{window}, rc.Observers...) // a copy: the caller's stays as it is
	if tel != nil {
		// first: the sampler's baseline comes before anything else as
		// the window opens
		rc.Observers = append([]runner.Observer{telemetryObserver{tel}}, rc.Observers...)
	}
	notified := windowNotifications(s.Workload, &rc)
	var shard result.Shard
	if s.sharded() { // the last thing before the run: the shards start together
		if shard, err = startTogether(ctx, s, db, began); err != nil {
			conns.Close()
			if tel != nil {
				tel.Finish(ctx)
			}
			return nil, err
		}
		m = &member{runID: s.Shard.RunID, shard: s.Runner.Shard.Index, name: s.shardName()}
		m.beat(s, db)
		defer m.stop()
	}
	faults.hook(&rc)
	out, err := runner.Run(ctx, rc, conns, s.Workload)
	faults.wait() // the server and pooler are back before anything reads them
	stopBackground()
	pool := conns.PoolStats()
	conns.Close() // the sessions end: the server publishes their statistics
	wctx, endWindDown := windDown(ctx)
	defer endWindDown()
	var tr *result.Telemetry
	if tel != nil {
		if ctx.Err() == nil { // after an interrupt, the 2 s left are the check's
			db.closePoolerServers(wctx) // their backends publish their statistics as they exit
		}
		fctx, cancel := telemetryCtx(ctx, wctx)
		tr = tel.Finish(fctx)
		cancel()
	}
	if err != nil {
		return nil, err
	}
	r = assemble(s, db, out)
	r.Notifications = notified()
	if d, ok := s.Workload.(workload.DataReporter); ok {
		r.Data = d.Data() // what Start found
	}
	r.Telemetry = tr
	r.SlowOps = out.SlowOps
	tel.ExplainSlowOps(r.SlowOps, cmp.Or(s.Pooler.Via, Direct) != Direct)
	r.SetServerTimes()
	r.Pool = pool
	r.Pooler = db.poolerResult(wctx, before)
	mendPooler(r.Pooler, tr, db.fleet == nil)
	notePartialPooler(r, db)
	db.addDeaths(r, window.opened(out.Started))
	// The check runs even after an interrupt: it is quick and says whether
	// anything was lost. It gets a session of its own: the server may have
	// restarted during the run.
	checkCtx, cancel := context.WithTimeout(wctx, 5*time.Minute)
	defer cancel()
	if s.sharded() {
		if r.Invariants, err = endShard(checkCtx, s, db, r, shard, m); r.Invariants != nil || err != nil {
			return r, err
		}
	}
	var ch workload.Check
	err = withCheckConn(checkCtx, s, db, r, func(c target.Conn) (err error) {
		var sh sharing
		if m != nil {
			if !s.sharded() {
				if _, err := finishShard(checkCtx, s, c, m); err != nil {
					return err
				}
			}
			if sh, err = shareBooks(checkCtx, s, c, m.runID, shareWait, false); err != nil || sh.not != nil {
				if sh.not != nil {
					ch = *sh.not
				}
				return err
			}
		}
		if ch, err = s.Workload.Check(checkCtx, c); err != nil || m == nil {
			return err
		}
		return sh.after(checkCtx, s, c, &ch)
	})
	if err != nil && wctx.Err() != nil {
		r.Invariants = &workload.Check{NotChecked: context.Cause(wctx).Error()}
		return r, nil
	}
	if errors.Is(err, errCheckNoAnswer) { // the verdict says so, and the error why
		r.Invariants = &workload.Check{NotChecked: errCheckNoAnswer.Error()}
	}
	if err != nil {
		return r, err
	}
	r.Invariants = &ch
	return r, nil
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
	r := &result.Result{
		Format:   result.Format,
		Tool:     result.Tool{Version: s.Version, Go: runtime.Version()},
		Workload: s.Name,
		Settings: s.Workload.Settings(),
		Config: result.Config{
			DB: db.URL, Clients: rc.Clients, Iterations: rc.Iterations, Seed: rc.Seed,
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
			CPUUserS: out.CPU.User.Seconds(), CPUSysS: out.CPU.Sys.Seconds(),
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
	r.Config.Via = target.MaskURL(cmp.Or(s.Pooler.Via, Direct))
	r.Network = db.network
	r.Notes = append(r.Notes, s.CPUs.Notes(db.fleet != nil)...)
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
		r.Client.CPUPerCycleMS = out.CPU.Total().Seconds() * 1000 / float64(c.Count)
	}
	if txns, _ := r.Transactions(); txns > 0 {
		r.Client.AllocPerTxnKB = float64(out.CPU.AllocBytes) / 1024 / float64(txns)
	}
	return r
}

// Isolate prepares db for the next run of a study: a throwaway pooler is
// restarted, the server's statistics are reset where the dialect can, then
// it waits settle so the previous run's background work (checkpoints,
// vacuum) calms down.
func Isolate(ctx context.Context, db *Database, settle time.Duration) error {
	if db.fleet != nil {
		if err := db.fleet.Restart(ctx); err != nil {
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
		if err != nil && target.Classify(err) == target.ClassPermission {
			return statsNotReset(ctx, settle)
		}
		if err != nil {
			return fmt.Errorf("resetting the server's statistics: %w", err)
		}
	}
	return runner.Sleep(ctx, settle)
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
