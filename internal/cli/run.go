package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/live"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// runFlags are the flags every workload's run and init share.
type runFlags struct {
	db, pgBin string
	via       string           // --via as given
	pgbouncer target.PgBouncer // --pool-mode, --pgbouncer-pool-size, --pgbouncer-bin, --poolers
	// spec is --db and --via, parsed once by validate.
	spec        target.Spec
	pgConf      []string
	mariadbConf []string
	cfg         runner.Config
	conn        connect.Options
	seed        uint64
	json        string
	html        string
	csv         string // --csv: the intervals, one row per op each
	jsonl       string // --jsonl: the intervals as JSON lines, as they close
	reinit      bool
	profile     string
	telemetry   string // on or off
	tel         job.Telemetry
	// metricsAddr serves live Prometheus metrics (--metrics-addr).
	metricsAddr string
	dash        dashboardFlags // --dashboard and its flags (dashboard.go)
	// minSuccess fails a run whose transactions succeeded less often, in
	// % (--min-success; 0: off).
	minSuccess float64
	faults     []string // --fault AT:KIND[:ARG], each
	// connectTimeout is --connect-timeout: how long a client's login may
	// take (0: as long as it takes).
	connectTimeout time.Duration
	// network is --network, shape its parsed value (nil: none).
	network string
	shape   *faultproxy.Shape
	// poolerNetwork is --pooler-network, poolerShape its parsed value.
	poolerNetwork string
	poolerShape   *faultproxy.Shape
	// cpus is --cpus, cpuSets its parsed value (nil: none).
	cpus    string
	cpuSets job.CPUs
	// tls is --tls: on or off.
	tls string
	// isolation is --isolation as given, read into spec.Isolation.
	isolation string
	replicas  replicaFlags // --replicas, --replication (replicas.go)
}

func (f *runFlags) register(fs *pflag.FlagSet, run bool) {
	fs.StringVar(&f.db, "db", "", "database: sqlite:PATH, temp-postgres (a throwaway local cluster), temp-mariadb (a throwaway local MariaDB), postgres://user:password@host:port/db or mysql://user:password@host:port/db; default: SQLite in a temporary file")
	fs.StringVar(&f.pgBin, "pg-bin", "", "directory with initdb and postgres for temp-postgres (default: pg_config --bindir, PATH, /usr/lib/postgresql/*/bin; --db temp-postgres@17 picks an installed version)")
	fs.StringArrayVar(&f.pgConf, "pg-conf", nil, "server setting key=value for temp-postgres (repeatable)")
	fs.StringArrayVar(&f.mariadbConf, "mariadb-conf", nil, "server setting name=value for temp-mariadb, passed as --name=value (repeatable)")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed for data and op choices; 0 picks one, which is printed and saved")
	fs.BoolVar(&f.reinit, "reinit", false, "drop and recreate the workload's schema and data first, naming the tables it drops (the only way tables of its names that txnbench did not make are dropped)")
	declareFlags(fs, kindSetting, "db", "pg-bin", "pg-conf", "mariadb-conf", "seed")
	declareFlags(fs, kindControl, "reinit")
	if !run {
		return
	}
	fs.IntVar(&f.cfg.Clients, "clients", 8, "concurrent clients (simulated application instances; see --conn for their connections)")
	fs.DurationVar(&f.cfg.Duration, "duration", 30*time.Second, "how long to measure (after the warm-up)")
	fs.Int64Var(&f.cfg.Iterations, "iterations", 0, "run exactly this many cycles in total across all clients (warm-up included), instead of --duration")
	fs.DurationVar(&f.cfg.Ramp, "ramp", 0, "start clients evenly spread over this time (measured unless --warmup covers it)")
	fs.DurationVar(&f.cfg.Warmup, "warmup", 0, "run this long before measuring; excluded from the statistics")
	fs.Float64Var(&f.cfg.Rate, "rate", 0, "target cycles per second across all clients, started on a Poisson schedule; latency counts from the scheduled start (0: as fast as possible)")
	fs.DurationVar(&f.cfg.LatencyLimit, "latency-limit", 0, "count cycles slower than this as late; with --rate, skip those already this late when due")
	fs.StringVar(&f.conn.Strategy, "conn", connect.Session, "how clients get connections: session (each keeps its own), per-txn (a new one per transaction, like pgbench -C) or pool (clients share --pool-max connections)")
	fs.IntVar(&f.conn.Pool.Max, "pool-max", 10, "connections in the shared pool, with --conn pool")
	fs.IntVar(&f.conn.Pool.Min, "pool-min", 0, "connections the pool opens up front and keeps, with --conn pool")
	fs.DurationVar(&f.conn.Pool.Lifetime, "pool-lifetime", 0, "replace a pooled connection after this long (0: the driver's default, 1h)")
	fs.DurationVar(&f.conn.Pool.HealthCheck, "pool-health-check", 0, "check idle pooled connections this often (0: the driver's default, 1m)")
	fs.StringVar(&f.via, "via", target.ViaDirect.String(), "what clients connect through: direct, pgbouncer (a throwaway PgBouncer in front of --db) or the postgres:// URL of an existing pooler")
	fs.StringVar(&f.pgbouncer.Mode, "pool-mode", pooler.DefaultMode, "pool_mode of the throwaway PgBouncer: "+pooler.ModeList())
	fs.IntVar(&f.pgbouncer.Size, "pgbouncer-pool-size", pooler.DefaultSize, "server connections of the throwaway PgBouncer (default_pool_size)")
	fs.StringVar(&f.pgbouncer.Bin, "pgbouncer-bin", "", "the pgbouncer binary (default: PATH, /usr/sbin/pgbouncer)")
	fs.IntVar(&f.pgbouncer.Poolers, "poolers", 1, "with --via pgbouncer: how many throwaway PgBouncers; more than 1 puts a throwaway HAProxy in front (leastconn, health checks every second)")
	fs.StringVar(&f.isolation, "isolation", "", "the transactions' isolation level: read-committed, repeatable-read, serializable or read-uncommitted (MariaDB); default: the server's, which the result names (docs/isolation.md)")
	fs.IntVar(&f.cfg.MaxTries, "max-tries", 10, "attempts per op for serialization failures, deadlocks and SQLite busy errors")
	fs.DurationVar(&f.cfg.Progress, "progress", 0, "interval between progress lines and chart points (default: at least 10 per --duration, from 100ms to 10s)")
	fs.DurationVar(&f.cfg.Grace, "grace", 30*time.Second, "after --duration, how long ops still running may take to finish (their latency counts, their count not) before they are cancelled and counted unfinished")
	fs.StringVar(&f.json, "json", "", "write the full result as JSON to this file")
	fs.StringVar(&f.html, "html", "", "write a self-contained HTML report with charts to this file")
	fs.StringVar(&f.csv, "csv", "", "write the progress intervals as CSV to this file: one row per op per interval (docs/outputs.md)")
	fs.StringVar(&f.jsonl, "jsonl", "", "write each progress interval as a JSON line to this file as it closes, for tailing (docs/outputs.md)")
	fs.StringVar(&f.telemetry, "telemetry", "on", "on: watch the database (pg_stat_database, wait events, pg_stat_statements), the pooler and the client's and machine's CPU during the run; off: nothing")
	fs.DurationVar(&f.tel.Sample, "telemetry-sample", 100*time.Millisecond, "how often wait events are sampled from pg_stat_activity")
	fs.StringVar(&f.profile, "cpu-profile", "", "write a Go CPU profile of txnbench itself during the run to this file (go tool pprof)")
	fs.Float64Var(&f.minSuccess, "min-success", 0, "fail (exit 1) when less than this % of transactions succeeded, e.g. 99.9 for a CI gate (0: off; a run in which an op never succeeded fails anyway)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://HOST:PORT/metrics during the run (port 0: a free one); they update every --progress interval, so scrape with e.g. --progress 1s")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", 10*time.Second, "how long a client's login may take, in whole seconds, before it counts as an error (0: as long as it takes, as pgbench); raise it for slow networks or thousands of clients logging in at once")
	fs.StringVar(&f.network, "network", "", "make a network between the clients and what they connect to (server, PgBouncer or HAProxy): rtt=2ms[,jitter=0.2ms][,rate=1gbit][,loss=0.1%] (keys also joined by +, as in --vary network=rtt=0ms,rtt=2ms+jitter=0.2ms; none: no network); see docs/network.md")
	fs.StringVar(&f.poolerNetwork, "pooler-network", "", "with --via pgbouncer: make a network between txnbench's PgBouncers and the server, shaped as --network (which then puts the pooler beside the clients when rtt=0ms or left out)")
	fs.StringVar(&f.cpus, "cpus", "", "CPUs for each part: server=0-1,pooler=2,clients=3 (the throwaway server, txnbench's PgBouncers and HAProxy, txnbench itself with its clients and network proxies); a part left out runs on any, and the result notes a part with no CPU of its own")
	fs.StringVar(&f.tls, "tls", "off", "on (--tls alone): temp-postgres and txnbench's PgBouncers serve TLS with certificates of a CA made for the run, which the clients verify (verify-full); off: no TLS; see docs/network.md")
	fs.Lookup("tls").NoOptDefVal = "on"
	fs.StringArrayVar(&f.faults, "fault", nil, "inject a fault at AT in the window: AT:KIND[:ARG] with KIND kill-server, restart-server, hang-server, terminate-backends, kill-pooler, latency, blackhole, reset, failover or switchover (repeatable; see docs/faults.md)")
	declareFlags(fs, kindSetting, "clients", "duration", "iterations", "ramp", "warmup", "rate", "latency-limit", "conn", "pool-max", "pool-min", "pool-lifetime", "pool-health-check",
		"via", "pool-mode", "pgbouncer-pool-size", "pgbouncer-bin", "poolers", "isolation", "max-tries", "grace", "telemetry", "telemetry-sample", "fault", "connect-timeout", "network", "pooler-network", "cpus", "tls")
	declareFlags(fs, kindOutput, "json", "html", "cpu-profile", "csv", "jsonl")
	f.replicas.register(fs)
	declareFlags(fs, kindControl, "progress", "min-success", "metrics-addr")
	f.dash.register(fs)
}

// validate checks the shared flags; usage errors name the fix. The
// checks run in this order, so that of several bad flags the same one is
// named first.
func (f *runFlags) validate(fs *pflag.FlagSet, run bool) error {
	viaErr, err := f.validateDB(fs)
	if err != nil {
		return err
	}
	if f.seed == 0 {
		f.seed = rand.Uint64()>>1 | 1
	}
	f.cfg.Seed = f.seed
	if !run {
		if f.spec.Throwaway() {
			return usage(fmt.Errorf("init on %s would be thrown away at exit: give --db sqlite:PATH, a postgres:// or a mysql:// URL, or just use run", f.spec))
		}
		return nil
	}
	if err := f.validateIsolation(); err != nil {
		return err
	}
	if err := f.validateWindow(fs); err != nil {
		return err
	}
	if err := f.validateNetwork(); err != nil {
		return err
	}
	if f.cfg.Grace == 0 {
		return usage(errors.New("--grace 0s: give a positive duration such as 1s (ops still running are then cancelled)"))
	}
	if err := f.conn.Validate(); err != nil {
		return usage(err)
	}
	if err := f.validateVia(viaErr); err != nil {
		return err
	}
	if err := f.validateWatch(); err != nil {
		return err
	}
	if err := f.replicas.validate(fs); err != nil {
		return err
	}
	return checkOutFiles(f.outs()...)
}

// outs are the run's output files.
func (f *runFlags) outs() []outFile {
	return []outFile{{"--json", f.json}, {"--html", f.html}, {"--cpu-profile", f.profile}, {"--csv", f.csv}, {"--jsonl", f.jsonl}}
}

// validateDB reads --db and --via into f.spec and checks the server's
// own flags (--pg-bin, --pg-conf, --mariadb-conf) against it. An error
// reading --via is returned apart (viaErr), to be reported after the
// settings it does not change.
func (f *runFlags) validateDB(fs *pflag.FlagSet) (viaErr, err error) {
	if f.db == "" && fs.Changed("db") { // an unset variable: not the temporary SQLite
		return nil, usage(errors.New("--db is empty: give sqlite:PATH, temp-postgres, temp-mariadb, a postgres:// URL or a mysql:// URL, or leave --db out for a temporary SQLite"))
	}
	sp, err := target.ParseSpec(target.ResolveURL(f.db)) // PGHOST & co., seen by every part of the run
	if err != nil {
		if errors.Is(err, target.ErrVersion) {
			return nil, usage(err)
		}
		if errors.Is(err, target.ErrMalformedURL) { // a URL whose port is none
			return nil, usage(fmt.Errorf("--db: %w", err))
		}
		return nil, usage(fmt.Errorf("unknown --db %q: use sqlite:PATH, temp-postgres, temp-mariadb, a postgres:// URL or a mysql:// URL", target.MaskURL(f.db)))
	}
	if sp.Version != "" {
		if f.pgBin != "" {
			return nil, usage(fmt.Errorf("--pg-bin with --db %s: give one of them (the version is looked up, --pg-bin names the directory)", f.db))
		}
		if f.pgBin, err = localdb.FindVersion(sp.Version); err != nil {
			return nil, usage(err)
		}
	}
	if err := checkSQLiteDir(sp); err != nil {
		return nil, err
	}
	eng := engine.Of(sp)
	if f.pgBin != "" && sp.Throwaway() && eng.Flags().Bin == "pg-bin" && sp.Version == "" {
		if err := eng.CheckBin(f.pgBin); err != nil { // before the server would be started
			return nil, usage(err)
		}
	}
	via, viaErr := target.ParseVia(target.ResolveURL(f.via))
	via.PgBouncer = f.pgbouncer
	sp.Via = via
	f.spec = sp
	if via.Kind == target.ViaPgBouncer && sp.Remote() && eng.Caps().PgBouncer && target.MultiHost(sp.URL) {
		return nil, usage(errors.New("--via pgbouncer with several --db hosts: PgBouncer fronts one server; give one host"))
	}
	for _, kv := range f.pgConf {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return nil, usage(fmt.Errorf("--pg-conf %q: want key=value, e.g. --pg-conf shared_buffers=256MB", kv))
		}
	}
	if err := settingsFor(sp, "pg-conf", f.pgConf); err != nil {
		return nil, err
	}
	for _, kv := range f.mariadbConf {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return nil, usage(fmt.Errorf("--mariadb-conf %q: want name=value, e.g. --mariadb-conf innodb_buffer_pool_size=256M", kv))
		}
	}
	if err := settingsFor(sp, "mariadb-conf", f.mariadbConf); err != nil {
		return nil, err
	}
	return viaErr, nil
}

// settingsFor refuses the server settings of flag (--pg-conf,
// --mariadb-conf) unless sp names a throwaway server of the engine whose
// settings flag it is: they set up the server txnbench starts.
func settingsFor(sp target.Spec, flag string, conf []string) error {
	if len(conf) == 0 || sp.Throwaway() && engine.Of(sp).Flags().Settings == flag {
		return nil
	}
	var forms []string
	for _, e := range engine.All() {
		if e.Flags().Settings == flag {
			forms = append(forms, target.ThrowawayForm(e.Name()))
		}
	}
	return usage(fmt.Errorf("--%s only applies to --db %s: set server settings on your own server directly", flag, strings.Join(forms, " or ")))
}

// validateIsolation reads --isolation into the spec, refusing a level its
// engine does not keep.
func (f *runFlags) validateIsolation() error {
	if f.isolation == "" {
		return nil
	}
	l, err := target.ParseIsolation(f.isolation)
	if err != nil {
		return usage(err)
	}
	f.spec.Isolation = l
	if err := target.CheckIsolation(f.spec.Kind, l); err != nil {
		return usage(err)
	}
	return nil
}

// validateWindow checks the run's window: --iterations alone runs
// without a duration, --progress defaults from the duration, the
// runner's settings, --connect-timeout.
func (f *runFlags) validateWindow(fs *pflag.FlagSet) error {
	if fs.Changed("iterations") && !fs.Changed("duration") {
		f.cfg.Duration = 0
	}
	if !fs.Changed("progress") {
		f.cfg.Progress = runner.DefaultProgress(f.cfg.Duration)
	}
	if err := f.cfg.Validate(); err != nil {
		return usage(err)
	}
	if f.connectTimeout < 0 || f.connectTimeout%time.Second != 0 {
		return usage(fmt.Errorf("--connect-timeout %s: give whole seconds such as 10s, or 0 to wait as long as a login takes", f.connectTimeout))
	}
	return nil
}

// validateNetwork reads --network, --pooler-network and --cpus and
// checks --tls against the spec.
func (f *runFlags) validateNetwork() error {
	var err error
	if f.shape, err = parseNetwork(f.network, f.spec); err != nil {
		return usage(err)
	}
	if f.poolerShape, err = parseNetwork(f.poolerNetwork, target.Spec{Kind: f.spec.Kind}); err != nil {
		return usage(errors.New(strings.Replace(err.Error(), "--network", "--pooler-network", 1)))
	}
	if f.cpus != "" {
		if f.cpuSets, err = job.ParseCPUs(f.cpus); err != nil {
			return usage(fmt.Errorf("--cpus %s: %w", f.cpus, err))
		}
	}
	switch f.tls {
	case "on", "off":
	default:
		return usage(fmt.Errorf("unknown --tls %q: choose on or off", f.tls))
	}
	if f.tls == "on" && !(f.spec.Throwaway() && engine.Of(f.spec).Caps().TLS) {
		return usage(job.ErrTLSNeedsTempPostgres)
	}
	if f.poolerShape != nil && f.spec.Via.Kind != target.ViaPgBouncer {
		return usage(errors.New("--pooler-network is between txnbench's PgBouncer and the server: add --via pgbouncer, or use --network for the clients' side"))
	}
	return nil
}

// validateVia checks --via (viaErr is validateDB's reading of it) and the
// settings of txnbench's PgBouncers against the spec.
func (f *runFlags) validateVia(viaErr error) error {
	if viaErr != nil {
		return usage(viaErr)
	}
	via, caps := f.spec.Via, engine.Of(f.spec).Caps()
	if via.Kind == target.ViaURL && f.spec.Throwaway() && caps.PgBouncer {
		return usage(errors.New("--via URL with --db temp-postgres: an existing pooler cannot front a throwaway server; use --via pgbouncer"))
	}
	if err := pooler.Check(f.pgbouncer.Mode, f.pgbouncer.Size); err != nil {
		return usage(err)
	}
	if err := validatePoolers(via); err != nil {
		return usage(err)
	}
	if via.Kind == target.ViaPgBouncer && !caps.PgBouncer {
		return usage(job.ErrPgBouncerNeedsServer)
	}
	if via.Kind == target.ViaPgBouncer && f.pgbouncer.Bin != "" {
		if _, err := localdb.FindPgBouncer(f.pgbouncer.Bin); err != nil { // before the server would be started
			return usage(err)
		}
	}
	return nil
}

// validateWatch checks what watches the run: --telemetry and its sample,
// the --min-success gate, --metrics-addr.
func (f *runFlags) validateWatch() error {
	switch f.telemetry {
	case "on", "off":
		f.tel.Off = f.telemetry == "off"
	default:
		return usage(fmt.Errorf("unknown --telemetry %q: choose on or off", f.telemetry))
	}
	if f.tel.Sample < time.Millisecond {
		return usage(fmt.Errorf("--telemetry-sample %s: give at least 1ms, e.g. 100ms", f.tel.Sample))
	}
	if !(f.minSuccess >= 0 && f.minSuccess <= 100) { // NaN too: a gate that never fails
		return usage(fmt.Errorf("--min-success %g: give a percentage from 0 (off) to 100", f.minSuccess))
	}
	if f.metricsAddr != "" {
		if _, _, err := live.ParseAddr(f.metricsAddr); err != nil {
			return usage(fmt.Errorf("--metrics-addr %q: %w", f.metricsAddr, err))
		}
	}
	return f.dash.validate()
}

// runCommand builds "run" (or "init") with one subcommand per workload.
func (a *app) runCommand(initOnly bool, args []string) *cobra.Command {
	name, short := "run", "Run a workload and report per-op latency, errors and the invariant check"
	if initOnly {
		name, short = "init", "Create a workload's schema and initial data, to run against later"
	}
	parent := &cobra.Command{
		Use:                name + " WORKLOAD [flags]",
		Short:              short,
		DisableFlagParsing: true, // so an unknown workload is named before its flags are
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, arg := range args {
				if arg == "-h" || arg == "--help" {
					return cmd.Help()
				}
				if !strings.HasPrefix(arg, "-") {
					_, err := workload.Lookup(arg)
					return usage(err)
				}
			}
			return usage(fmt.Errorf("no workload given: txnbench %s WORKLOAD, with WORKLOAD one of %s", name, strings.Join(workload.Names(), ", ")))
		},
	}
	for _, wname := range runWorkloads(name, args) {
		def, _ := workload.Lookup(wname)
		sub := &cobra.Command{
			Use:   def.Name,
			Short: def.Summary,
			Args:  cobra.NoArgs,
		}
		rs := newRunSpec(def, sub.Flags(), !initOnly)
		if !initOnly {
			rs.shard = newShardFlags(sub.Flags())
		}
		sub.RunE = func(cmd *cobra.Command, _ []string) error {
			spec, err := rs.spec(a, cmd.Flags())
			if err != nil {
				return err
			}
			if initOnly {
				return a.initWorkload(cmd.Context(), spec)
			}
			_, err = a.runWorkload(cmd.Context(), spec, &rs.f)
			return err
		}
		sub.Flags().SortFlags = false
		sub.SetHelpFunc(func(cmd *cobra.Command, _ []string) { groupedHelp(cmd.OutOrStdout(), cmd, def) })
		parent.AddCommand(sub)
	}
	return parent
}

// runWorkloads are the workloads the command name (run or init) is built
// with for the command line args: the one named right after it alone, as
// rootCommand builds the command named alone (issue 40: each workload's
// flags, a hundred or more, and the workload itself, seven times over,
// were a fifth of a one-client run's allocations); anything else (help, a
// flag first, a typo) gets them all, for its listing and suggestions.
func runWorkloads(name string, args []string) []string {
	if len(args) > 1 && args[0] == name {
		if _, err := workload.Lookup(args[1]); err == nil {
			return []string{args[1]}
		}
	}
	return workload.Names()
}

// runSpec is one workload's run (or init) settings, bound to flags.
type runSpec struct {
	def workload.Def
	w   workload.Workload
	f   runFlags
	run bool // run rather than init: the runner's flags too
	// shard splits the run across processes (run only, not a study's)
	shard *shardFlags
}

// newRunSpec registers a fresh workload's flags and the run flags on fs.
func newRunSpec(def workload.Def, fs *pflag.FlagSet, run bool) *runSpec {
	rs := &runSpec{def: def, w: def.New(), run: run}
	rs.f.register(fs, run)
	workload.Flags(rs.w, fs)
	return rs
}

// spec validates the parsed flags and makes the job's specification.
func (rs *runSpec) spec(a *app, fs *pflag.FlagSet) (job.Spec, error) {
	// --clients as the user gave it, or what its default follows from: a
	// workload that derives it is validated first, so that a bad
	// --warehouses is named, not the --clients it would make.
	clients, validated := fmt.Sprintf("--clients %d", rs.f.cfg.Clients), false
	if d, ok := rs.w.(workload.ClientDefaulter); ok && rs.run && !fs.Changed("clients") {
		if err := workload.Validate(rs.w); err != nil {
			return job.Spec{}, usage(err)
		}
		rs.f.cfg.Clients, clients = d.DefaultClients()
		validated = true
	}
	if err := rs.f.validate(fs, rs.run); err != nil {
		return job.Spec{}, err
	}
	if !validated {
		if err := workload.Validate(rs.w); err != nil {
			return job.Spec{}, usage(err)
		}
	}
	load := ""
	switch {
	case !rs.run:
		load = "init"
	case rs.f.reinit:
		load = "--reinit"
	}
	config, _ := fs.GetString("config")
	if err := rs.checkFiles(config); err != nil {
		return job.Spec{}, err
	}
	if err := workload.CheckExistingData(rs.w, rs.f.spec, load); err != nil {
		return job.Spec{}, usage(err)
	}
	if err := workload.CheckDatabase(rs.w, rs.f.spec); err != nil {
		return job.Spec{}, usage(err)
	}
	if rs.shard != nil {
		if err := rs.shard.resolve(fs, &rs.f, rs.def.Name, rs.w); err != nil {
			return job.Spec{}, err
		}
	}
	if rs.run {
		if err := runner.CheckMemory(rs.f.cfg, rs.w, clients); err != nil {
			return job.Spec{}, usage(err)
		}
	}
	f := &rs.f
	spec := job.Spec{
		DB: f.spec, PGBin: f.pgBin, PGConf: f.pgConf, MariaDBConf: f.mariadbConf, Name: rs.def.Name, Workload: rs.w,
		Runner: f.cfg, Conn: f.conn, Telemetry: f.tel, ConnectTimeout: connectTimeout(f.connectTimeout), Network: f.shape, PoolerNetwork: f.poolerShape, CPUs: f.cpuSets, TLS: f.tls == "on", Fresh: f.reinit, Args: a.args, Version: version(), Log: a.status, Shard: rs.shard.spec(),
	}
	spec.Replication = f.replicas.spec
	return spec, faultsOf(&spec, f.faults)
}

// parseNetwork parses --network v for the clients of sp: nil for none.
func parseNetwork(v string, sp target.Spec) (*faultproxy.Shape, error) {
	if v == "" || v == "none" {
		return nil, nil
	}
	sh, err := faultproxy.ParseShape(v)
	if err != nil {
		return nil, fmt.Errorf("--network %s: %w", v, err)
	}
	if !engine.Of(sp).Caps().Network && sp.Via.Kind != target.ViaURL {
		return nil, errors.New("--network needs a server the clients reach over TCP: use --db temp-postgres or a postgres:// URL")
	}
	return &sh, nil
}

// connectTimeout is job.Spec.ConnectTimeout for --connect-timeout d.
func connectTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return job.NoConnectTimeout
	}
	return d
}

func (a *app) initWorkload(ctx context.Context, s job.Spec) error {
	db, err := job.Open(ctx, s, 1)
	if err != nil {
		return err
	}
	defer db.Close()
	created, err := job.Init(ctx, s, db)
	if err != nil {
		return err
	}
	if !created {
		return fmt.Errorf("%s is already initialised in %s: add --reinit to drop and recreate it", s.Name, db.URL)
	}
	a.status(fmt.Sprintf("%s initialised in %s", s.Name, db.URL))
	return nil
}

// runWorkload runs s, prints its summary and saves its JSON with --json;
// it returns the result (nil when the run did not start) beside the error
// that sets the exit status.
func (a *app) runWorkload(ctx context.Context, s job.Spec, f *runFlags) (*result.Result, error) {
	jsonPath := f.json
	lm, err := a.serveMetrics(f.metricsAddr) // before anything starts: a busy port fails now
	if err != nil {
		return nil, err
	}
	defer lm.close()
	ld, err := a.openDashboard(f.dash) // as early: a busy port fails now
	if err != nil {
		return nil, err
	}
	defer ld.close()
	ld.watch(&s, "")
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnTick: func(iv result.Interval) {
		a.status(report.ProgressLine(iv))
	}}}
	s.Runner.OnPhase = a.status
	jl := &jsonlOut{path: f.jsonl}
	if f.jsonl != "" {
		s.Runner.Observers = append(s.Runner.Observers, jl)
	}
	defer jl.close()
	db, err := job.Open(ctx, s, s.ServerConnections())
	if err != nil {
		if ctx.Err() != nil {
			return nil, exitError{code: exitcode.Interrupted, msg: "interrupted before the run started"}
		}
		return nil, err
	}
	defer db.Close()
	lm.track(&s, db, "")
	what := fmt.Sprintf("%d clients", s.Runner.Clients)
	if s.Runner.Iterations > 0 {
		what += fmt.Sprintf(", %d iterations", s.Runner.Iterations)
	} else {
		what += ", " + s.Runner.Duration.String()
	}
	if l, byDefault := db.Isolation(); l != target.DefaultIsolation {
		what += ", isolation " + result.IsolationText(string(l), byDefault)
	}
	if sh := s.Runner.Shard; sh.Sharded() {
		what += fmt.Sprintf(", shard %d of %d of run %s", sh.Index, sh.Count, s.Shard.RunID)
	}
	a.status(fmt.Sprintf("running %s on %s %s (%s, seed %d)", s.Name, db.Dialect().Name, db.Dialect().Version, what, s.Runner.Seed))
	if f.profile != "" {
		stop, err := startProfile(f.profile)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	r, err := job.Run(ctx, s, db)
	if r == nil {
		if ctx.Err() != nil {
			return nil, exitError{code: exitcode.Interrupted, msg: "interrupted before the run started"}
		}
		return nil, err
	}
	fmt.Fprintln(a.stdout)
	report.Summary(a.stdout, r)
	if jsonPath != "" {
		if serr := r.Save(jsonPath); serr != nil {
			return r, serr
		}
		a.status("result saved to " + jsonPath)
	}
	if f.html != "" {
		if herr := a.writeOut(f.html, "HTML report", func(w io.Writer) error { return report.HTML(w, r) }); herr != nil {
			return r, herr
		}
	}
	if f.csv != "" {
		if cerr := a.writeCSV(f.csv, r); cerr != nil {
			return r, cerr
		}
	}
	if jerr := jl.close(); jerr != nil {
		return r, jerr
	}
	if derr := ld.runDone(r); derr != nil {
		return r, derr
	}
	switch {
	case err != nil:
		return r, err
	case r.Invariants.Violated(): // even when interrupted: a loss outranks it
		return r, exitError{code: exitcode.Invariants, msg: "invariants violated: data was lost or corrupted (see the check above)"}
	case r.Interrupted:
		return r, exitError{code: exitcode.Interrupted}
	}
	return r, failedVerdict(r, f.minSuccess)
}

// startProfile starts a CPU profile of txnbench; stop finishes the file.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
