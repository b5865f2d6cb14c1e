package job

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// TempPostgres is the --db value that starts a throwaway cluster.
const TempPostgres = "temp-postgres"

// Spec is one run, as the command line gave it.
type Spec struct {
	DB       string   // "" (temporary SQLite), sqlite:PATH, temp-postgres or a URL
	PGBin    string   // where initdb and postgres are, for temp-postgres
	PGConf   []string // key=value server settings for temp-postgres
	Name     string   // workload name
	Workload workload.Workload
	Runner   runner.Config
	Conn     connect.Options // how clients get connections
	Fresh    bool            // drop and recreate the workload's schema
	Args     []string        // the command line, recorded with passwords masked
	Version  string          // txnbench's version
	// Log receives status messages (starting a server, loading data).
	Log func(string)
}

// Database is an opened target and whatever was started for it.
type Database struct {
	target.Target
	URL     string // masked
	cluster *localdb.Cluster
}

// Close closes the target and stops a throwaway cluster.
func (d *Database) Close() error {
	err := d.Target.Close()
	if d.cluster != nil {
		if serr := d.cluster.Stop(); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// Cluster is the throwaway cluster behind the database, or nil.
func (d *Database) Cluster() *localdb.Cluster { return d.cluster }

// Open opens the spec's database, starting a throwaway cluster for
// temp-postgres; clients is used to size its max_connections.
func Open(ctx context.Context, s Spec, clients int) (*Database, error) {
	spec := s.DB
	if spec == "" {
		spec = "sqlite:"
	}
	if spec != TempPostgres {
		t, err := target.Open(ctx, spec)
		if err != nil {
			return nil, err
		}
		shown := target.MaskURL(spec)
		if spec == "sqlite:" {
			shown = "sqlite (a temporary file, removed at exit)"
		}
		return &Database{Target: t, URL: shown}, nil
	}
	conf := s.PGConf
	if !hasSetting(conf, "max_connections") {
		conf = append([]string{"max_connections=" + strconv.Itoa(max(100, clients+20))}, conf...)
	}
	s.log("starting a throwaway PostgreSQL")
	started := time.Now()
	cl, err := localdb.Start(ctx, localdb.Options{BinDir: s.PGBin, Conf: conf})
	if err != nil {
		return nil, err
	}
	t, err := target.Open(ctx, cl.URL())
	if err != nil {
		cl.Stop()
		return nil, err
	}
	s.log(fmt.Sprintf("PostgreSQL %s ready on 127.0.0.1:%d in %.1f s", cl.Version(), cl.Port(), time.Since(started).Seconds()))
	return &Database{Target: t, URL: TempPostgres + " (" + cl.URL() + ")", cluster: cl}, nil
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

// Init creates the workload's schema and initial data in db.
func Init(ctx context.Context, s Spec, db *Database) (created bool, err error) {
	err = withConn(ctx, db, func(c target.Conn) (err error) {
		created, err = s.Workload.Init(ctx, c, db.Dialect(), workload.InitOptions{Fresh: s.Fresh, Seed: s.Runner.Seed, Progress: s.log})
		return err
	})
	return created, err
}

// Run initialises the workload if needed, runs it, checks the invariants
// and returns the Result. After an interrupt (ctx cancelled) the Result
// holds what was measured and Interrupted is set.
func Run(ctx context.Context, s Spec, db *Database) (*result.Result, error) {
	created, err := Init(ctx, s, db)
	if err != nil {
		return nil, err
	}
	if !created {
		s.log("using the existing " + s.Name + " schema and data (--reinit to start fresh)")
	}
	if err := withConn(ctx, db, func(c target.Conn) error { return s.Workload.Start(ctx, c) }); err != nil {
		return nil, err
	}
	conns, err := connect.New(ctx, db, s.Conn)
	if err != nil {
		return nil, err
	}
	out, err := runner.Run(ctx, s.Runner, conns, s.Workload)
	pool := conns.PoolStats()
	conns.Close()
	if err != nil {
		return nil, err
	}
	r := assemble(s, db, out)
	r.Pool = pool
	// The check runs even after an interrupt: it is quick and says whether
	// anything was lost. It gets a session of its own: the server may have
	// restarted during the run.
	checkCtx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var ch workload.Check
	err = withConn(checkCtx, db, func(c target.Conn) (err error) {
		ch, err = s.Workload.Check(checkCtx, c)
		return err
	})
	if err != nil {
		return r, err
	}
	r.Invariants = &ch
	return r, nil
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
		Ops:         out.Ops,
		Intervals:   out.Intervals,
		Client: result.Client{
			CPUUserS: out.CPU.User.Seconds(), CPUSysS: out.CPU.Sys.Seconds(),
			MaxRSSMB: float64(out.CPU.MaxRSSKB) / 1024,
		},
	}
	if s.Conn.Strategy == connect.Pool {
		r.Config.Pool = &s.Conn.Pool
	}
	if rc.Duration > 0 {
		r.Config.Duration = rc.Duration.String()
	}
	if rc.Ramp > 0 {
		r.Config.Ramp = rc.Ramp.String()
	}
	if rc.Warmup > 0 {
		r.Config.Warmup = rc.Warmup.String()
	}
	if c := r.Op(result.CycleOp); c != nil && c.Count > 0 {
		r.Client.CPUPerCycleMS = out.CPU.Total().Seconds() * 1000 / float64(c.Count)
	}
	var txns int64
	for _, o := range r.Ops {
		if o.Kind == "" {
			txns += o.Count
		}
	}
	if txns > 0 {
		r.Client.AllocPerTxnKB = float64(out.CPU.AllocBytes) / 1024 / float64(txns)
	}
	return r
}

// Isolate prepares db for the next run of a study: the server's statistics
// are reset where the dialect can, then it waits settle so the previous
// run's background work (checkpoints, vacuum) calms down.
func Isolate(ctx context.Context, db *Database, settle time.Duration) error {
	if q := db.Dialect().Caps.StatsReset; q != "" {
		err := withConn(ctx, db, func(c target.Conn) error {
			_, err := c.Exec(ctx, q)
			return err
		})
		if err != nil {
			return fmt.Errorf("resetting the server's statistics: %w", err)
		}
	}
	return workload.Sleep(ctx, settle)
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
