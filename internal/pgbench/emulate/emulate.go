package emulate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/user"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	pgscript "github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload/pgbenchscript"
)

// pgbench exit statuses, as pgbench's own.
const (
	pgbenchBad     = 1 // bad options, cannot connect, initialisation failed
	pgbenchAborted = 2 // clients aborted: the results are incomplete
)

// pgbenchOpts are pgbench's options plus txnbench's few of its own.
type pgbenchOpts struct {
	fs *pflag.FlagSet

	init, help, version, debug, listOnly bool
	host, port, user, dbname             string
	clients, threads, duration, progress int
	perClient                            int64
	rate, latencyLimit                   float64
	connect, perCommand, log             bool
	noVacuum, vacuumAll                  bool
	failuresDetailed, verboseErrors      bool
	exitOnAbort                          bool // pgbench 17's --exit-on-abort
	rel                                  release
	progressTimestamp                    bool
	perClientInt                         *int
	seedInfo                             string // pgbench's "setting random seed" lines
	maxTries                             int
	aggInterval                          int
	samplingRate                         float64
	logPrefix, randomSeed, showScript    string
	shown                                string // the builtin script --show-script shows
	w                                    *pgbenchscript.Workload

	// optErr is the first option whose value pgbench rejects while
	// parsing (pflag rewords the errors its Values return).
	optErr error
	// the raw arguments of the options pgbench reads with atof/atoi,
	// for its messages
	rateArg, latencyArg, samplingArg, triesArg string

	// txnbench's own
	db, via, json, pgBin string
	pgConf               []string
	isolation            target.Isolation // --isolation: the transactions' level
	output               string           // --pgbench-output: txnbench or strict
	telemetry            string           // --telemetry: on or off

	// checkOut refuses an output file that could not be written after
	// the run (Env.CheckOutFile); nil checks nothing.
	checkOut func(flag, path string) error
}

// pgbenchVersion is the client version pgbench prints, naming txnbench.
func (e *emulator) pgbenchVersion(r release) string {
	return r.version + " (txnbench " + e.Version + ")"
}

// newPgbenchOpts are the options of pgbench release r, and txnbench's.
func newPgbenchOpts(r release) *pgbenchOpts {
	o := &pgbenchOpts{w: pgbenchscript.New(), rel: r}
	o.w.Untagged = true // pgbench's bytes exactly
	fs := pflag.NewFlagSet("pgbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	o.fs = fs
	w := o.w
	fs.BoolVarP(&o.init, "initialize", "i", false, "invokes initialization mode")
	fs.StringVarP(&w.Setup.Steps, "init-steps", "I", setup.DefaultSteps, "run selected initialization steps ([dtgGvpf]+)")
	fs.VarP(o.intValue(&w.Setup.FillFactor, "-F/--fillfactor", 10, 100, 100), "fillfactor", "F", "set fill factor")
	fs.BoolVarP(&o.noVacuum, "no-vacuum", "n", false, "do not run VACUUM before tests (or during initialization)")
	fs.BoolVarP(&w.Setup.Quiet, "quiet", "q", false, "quiet logging (one message each 5 seconds)")
	fs.VarP(o.intValue(&w.Setup.Scale, "-s/--scale", 1, math.MaxInt32, 1), "scale", "s", "scaling factor")
	fs.BoolVar(&w.Setup.ForeignKeys, "foreign-keys", false, "create foreign key constraints between tables")
	fs.StringVar(&w.Setup.IndexTablespace, "index-tablespace", "", "create indexes in the specified tablespace")
	fs.StringVar(&w.Setup.PartitionMethod, "partition-method", "", "partition pgbench_accounts with this method (range|hash; default: range)")
	fs.Var(o.intValue(&w.Setup.Partitions, "--partitions", 0, math.MaxInt32, 0), "partitions", "partition pgbench_accounts into NUM parts")
	fs.StringVar(&w.Setup.Tablespace, "tablespace", "", "create tables in the specified tablespace")
	fs.BoolVar(&w.Setup.Unlogged, "unlogged-tables", false, "create tables as unlogged tables")
	w.Flags(pflag.NewFlagSet("unused", pflag.ContinueOnError)) // defaults only
	w.Setup.PartitionMethod = ""                               // pgbench's default: an explicit one needs --partitions
	fs.VarP(o.sourceValue(true), "builtin", "b", `add builtin script NAME weighted at W ("-b list" lists them)`)
	fs.VarP(o.sourceValue(false), "file", "f", "add script FILENAME weighted at W")
	fs.VarPF(builtinSwitch(w, "simple-update"), "skip-some-updates", "N", `skip updates of pgbench_tellers and pgbench_branches (same as "-b simple-update")`).NoOptDefVal = "true"
	fs.VarPF(builtinSwitch(w, "select-only"), "select-only", "S", `perform SELECT-only transactions (same as "-b select-only")`).NoOptDefVal = "true"
	clients := o.intValue(&o.clients, "-c/--clients", 1, math.MaxInt32, 1)
	clients.check = checkOpenFiles
	fs.VarP(clients, "client", "c", "number of concurrent database clients")
	fs.BoolVarP(&o.connect, "connect", "C", false, "establish new connection for each transaction")
	fs.StringArrayVarP(&w.Defines, "define", "D", nil, "define variable for use by custom script (VARNAME=VALUE)")
	fs.VarP(o.intValue(&o.threads, "-j/--jobs", 1, math.MaxInt32, 1), "jobs", "j", "number of threads")
	fs.BoolVarP(&o.log, "log", "l", false, "write transaction times to log file")
	fs.VarP(atofValue(&o.latencyLimit, &o.latencyArg), "latency-limit", "L", "count transactions lasting more than NUM ms as late")
	fs.StringVarP(&w.Mode, "protocol", "M", "simple", "protocol for submitting queries (simple|extended|prepared)")
	fs.VarP(o.intValue(&o.progress, "-P/--progress", 1, math.MaxInt32, 0), "progress", "P", "show thread progress report every NUM seconds")
	fs.BoolVarP(&o.perCommand, "report-per-command", "r", false, "report latencies, failures, and retries per command")
	fs.VarP(atofValue(&o.rate, &o.rateArg), "rate", "R", "target rate in transactions per second")
	var perClient int
	fs.VarP(o.intValue(&perClient, "-t/--transactions", 1, math.MaxInt32, 0), "transactions", "t", "number of transactions each client runs (default: 10)")
	fs.VarP(o.intValue(&o.duration, "-T/--time", 1, math.MaxInt32, 0), "time", "T", "duration of benchmark test in seconds")
	fs.BoolVarP(&o.vacuumAll, "vacuum-all", "v", false, "vacuum all four standard tables before tests")
	fs.Var(o.intValue(&o.aggInterval, "--aggregate-interval", 1, math.MaxInt32, 0), "aggregate-interval", "aggregate data over NUM seconds")
	if r.has17() {
		fs.BoolVar(&o.exitOnAbort, "exit-on-abort", false, "exit when any client is aborted")
	}
	fs.BoolVar(&o.failuresDetailed, "failures-detailed", false, "report the failures grouped by basic types")
	fs.StringVar(&o.logPrefix, "log-prefix", "pgbench_log", "prefix for transaction time log file")
	o.maxTries = 1
	fs.Var(atoiValue(&o.maxTries, &o.triesArg), "max-tries", "max number of tries to run transaction")
	fs.BoolVar(&o.progressTimestamp, "progress-timestamp", false, "use Unix epoch timestamps for progress")
	fs.StringVar(&o.randomSeed, "random-seed", "", `set random seed ("time", "rand", integer)`)
	fs.Var(atofValue(&o.samplingRate, &o.samplingArg), "sampling-rate", "fraction of transactions to log (e.g., 0.01 for 1%)")
	fs.StringVar(&o.showScript, "show-script", "", "show builtin script code, then exit")
	fs.BoolVar(&o.verboseErrors, "verbose-errors", false, "print messages of all errors")
	fs.BoolVarP(&o.debug, "debug", "d", false, "print debugging output")
	fs.StringVarP(&o.host, "host", "h", "", "database server host or socket directory")
	fs.StringVarP(&o.port, "port", "p", "", "database server port number")
	fs.StringVarP(&o.user, "username", "U", "", "connect as specified database user")
	fs.StringVar(&o.db, "db", "", "txnbench: the database as txnbench names it: a postgres:// URL, sqlite:PATH or temp-postgres")
	fs.StringVar(&o.via, "via", target.ViaDirect.String(), "txnbench: direct, pgbouncer (a throwaway PgBouncer) or a pooler's postgres:// URL")
	fs.StringVar(&o.json, "json", "", "txnbench: write the full result as JSON to this file")
	fs.Var(isolationValue{&o.isolation}, "isolation", "txnbench: the transactions' isolation level: read-committed, repeatable-read or serializable (default: the server's)")
	fs.StringVar(&o.pgBin, "pg-bin", "", "txnbench: directory with initdb and postgres for temp-postgres")
	fs.StringArrayVar(&o.pgConf, "pg-conf", nil, "txnbench: server setting key=value for temp-postgres (repeatable)")
	fs.BoolVar(&o.w.NoInit, "no-init", false, "txnbench: on temp-postgres, do not create pgbench's tables for custom scripts")
	fs.StringVar(&o.output, "pgbench-output", "txnbench", "txnbench: txnbench (pgbench's report plus percentiles and the balance check) or strict (pgbench's lines only)")
	fs.String("pgbench-version", pgbench17.major, "txnbench: the pgbench whose options, scripts and messages to follow where its releases differ: 17 or 15 (read before the other options)")
	fs.StringVar(&o.telemetry, "telemetry", "on", "txnbench: on (watch the database, its wait events and statement times, and the client's CPU beside the run; needs --json to be seen) or off (nothing: no session of its own, no sampling)")
	o.perClientInt = &perClient
	return o
}

// intValue is an int option read as pgbench's option_parse_int reads it,
// with its messages.
func (o *pgbenchOpts) intValue(p *int, name string, lo, hi, def int) *pgIntValue {
	*p = def
	return &pgIntValue{o: o, p: p, name: name, lo: lo, hi: hi}
}

type pgIntValue struct {
	o      *pgbenchOpts
	p      *int
	name   string
	lo, hi int
	check  func(n int) error // what pgbench checks next, if anything
}

func (v *pgIntValue) String() string { return strconv.Itoa(*v.p) }
func (v *pgIntValue) Type() string   { return "NUM" }
func (v *pgIntValue) Set(arg string) error {
	n, err := strconv.ParseInt(strings.TrimRightFunc(strings.TrimLeftFunc(arg, unicode.IsSpace), unicode.IsSpace), 10, 64)
	var e error
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		e = &pgbenchError{msg: fmt.Sprintf("invalid value \"%s\" for option %s", arg, v.name), code: pgbenchBad}
	case err != nil || n < int64(v.lo) || n > int64(v.hi):
		e = &pgbenchError{msg: fmt.Sprintf("%s must be in range %d..%d", v.name, v.lo, v.hi), code: pgbenchBad}
	case v.check != nil:
		e = v.check(int(n))
	}
	if e != nil {
		if v.o.optErr == nil {
			v.o.optErr = e
		}
		return e
	}
	*v.p = int(n)
	return nil
}

// checkOpenFiles refuses more clients than the open files limit allows,
// as pgbench does on reading -c: each needs a socket, besides stdin,
// stdout and stderr.
func checkOpenFiles(clients int) error {
	if limit, ok := openFilesLimit(); ok && limit < uint64(clients)+3 {
		return &pgbenchError{msg: fmt.Sprintf("need at least %d open files, but system limit is %d", clients+3, limit), code: pgbenchBad,
			more: "pgbench: hint: Reduce number of clients, or use limit/ulimit to increase the system limit.\n"}
	}
	return nil
}

// atofValue reads a number as C's atof: the longest prefix that is one,
// else 0. raw keeps the argument for pgbench's messages.
func atofValue(p *float64, raw *string) pflag.Value { return &cNumValue{f: p, raw: raw} }

// atoiValue reads an integer as C's atoi.
func atoiValue(p *int, raw *string) pflag.Value { return &cNumValue{i: p, raw: raw} }

type cNumValue struct {
	f   *float64
	i   *int
	raw *string
}

var atofPrefix = regexp.MustCompile(`^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`)
var atoiPrefix = regexp.MustCompile(`^\s*[+-]?[0-9]+`)

func (v *cNumValue) String() string { return *v.raw }
func (v *cNumValue) Type() string   { return "NUM" }
func (v *cNumValue) Set(arg string) error {
	*v.raw = arg
	if v.f != nil {
		*v.f, _ = strconv.ParseFloat(strings.TrimSpace(atofPrefix.FindString(arg)), 64)
		return nil
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(atoiPrefix.FindString(arg)), 10, 32)
	*v.i = int(n)
	return nil
}

// getoptError rewords pflag's complaints about the command line as glibc's
// getopt words them for pgbench.
func getoptError(err error) error {
	msg := err.Error()
	if errors.Is(err, pflag.ErrHelp) { // --help, not first
		msg = "unknown flag: --help"
	}
	if m := regexp.MustCompile(`^unknown flag: (--\S+)`).FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("unrecognized option '%s'", m[1])
	} else if m := regexp.MustCompile(`^unknown shorthand flag: '(.)'`).FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("invalid option -- '%s'", m[1])
	} else if m := regexp.MustCompile(`^flag needs an argument: '(.)'`).FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("option requires an argument -- '%s'", m[1])
	} else if m := regexp.MustCompile(`^flag needs an argument: (--\S+)`).FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("option '%s' requires an argument", m[1])
	} else {
		return &pgbenchError{msg: msg, code: pgbenchBad, hint: true}
	}
	return &pgbenchError{msg: msg, code: pgbenchBad, hint: true, bare: true}
}

// sourceValue keeps -f and -b in command-line order, as pgbench numbers
// its scripts, and reads each where it stands, as pgbench does: a script's
// error comes before those of the options after it, and "-b list" ends
// the reading.
func (o *pgbenchOpts) sourceValue(builtin bool) pflag.Value {
	return &sourceFlagValue{o: o, builtin: builtin}
}

type sourceFlagValue struct {
	o       *pgbenchOpts
	builtin bool
}

// errListed stops reading the options at "-b list" or --show-script.
var errListed = errors.New("-b list")

func (f *sourceFlagValue) String() string { return "" }
func (f *sourceFlagValue) Type() string   { return "NAME[@W]" }
func (f *sourceFlagValue) Set(v string) error {
	if f.builtin && v == "list" {
		f.o.listOnly = true
		return errListed
	}
	src := pgbenchscript.Source{Builtin: f.builtin, Arg: v}
	f.o.w.Sources = append(f.o.w.Sources, src)
	if name, _, _ := pgscript.ParseWeighted(v); name == "-" && !f.builtin {
		return nil // standard input is read once, with the others
	}
	s, err := pgbenchscript.Load(src)
	if err == nil && !f.o.rel.has17() {
		err = s.Refuse17()
	}
	if err != nil {
		e := scriptError(err)
		if f.o.optErr == nil {
			f.o.optErr = e
		}
		return e
	}
	return nil
}

// builtinSwitch is -S or -N: a builtin script added where the switch
// stands among -f and -b, as pgbench numbers its scripts.
func builtinSwitch(w *pgbenchscript.Workload, name string) pflag.Value {
	return &switchValue{w: w, name: name}
}

type switchValue struct {
	w    *pgbenchscript.Workload
	name string
}

func (s *switchValue) String() string   { return "false" }
func (s *switchValue) Type() string     { return "bool" }
func (s *switchValue) IsBoolFlag() bool { return true }
func (s *switchValue) Set(v string) error {
	if on, err := strconv.ParseBool(v); err != nil || !on {
		return err
	}
	s.w.Sources = append(s.w.Sources, pgbenchscript.Source{Builtin: true, Arg: s.name})
	return nil
}

// pgbenchError is printed as pgbench prints its errors.
type pgbenchError struct {
	msg  string
	code int
	hint bool   // add pgbench's "Try ... --help" line
	bare bool   // getopt's message: "pgbench: " without "error: "
	more string // lines pgbench prints after the message
}

func (e *pgbenchError) Error() string { return e.msg }

// badOption is an option pgbench 15 rejects after parsing: one error
// line, without the --help hint (pgbench adds that only to getopt's
// complaints and to surplus arguments).
func badOption(format string, args ...any) error {
	return &pgbenchError{msg: fmt.Sprintf(format, args...), code: pgbenchBad}
}

// parse reads the command line and checks it as pgbench does.
func (o *pgbenchOpts) parse(args []string) error {
	// pgbench knows --help and --version only as its first argument
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			o.help = true
			return nil
		case "--version", "-V":
			o.version = true
			return nil
		}
	}
	// pgbench reads PGBENCH_RANDOM_SEED first, then each option in turn,
	// checking it as it meets it
	arg, given := os.LookupEnv("PGBENCH_RANDOM_SEED")
	if err := o.setSeed(arg, given, "PGBENCH_RANDOM_SEED environment variable"); err != nil {
		return err
	}
	opts, operands, getoptErr := getoptLong(o.fs, args)
	for _, opt := range opts {
		err := o.fs.Parse([]string{opt})
		switch {
		case o.listOnly:
			return nil
		case err != nil && o.optErr != nil:
			return o.optErr
		case err != nil:
			return getoptError(err)
		}
		if err := o.readOption(opt); errors.Is(err, errListed) {
			return nil
		} else if err != nil {
			return err
		}
	}
	if getoptErr != nil {
		return getoptErr
	}
	if err := o.fs.Parse(append([]string{"--"}, operands...)); err != nil {
		return getoptError(err)
	}
	fs, w := o.fs, o.w
	o.perClient = int64(*o.perClientInt)
	o.dbname = fs.Arg(0)
	if o.help || o.version || o.shown != "" {
		return nil
	}
	// then the scripts (pgbench reads them as it meets them)
	if len(w.Sources) == 0 && !o.init {
		w.Sources = []pgbenchscript.Source{{Builtin: true, Arg: "tpcb-like"}}
	}
	if len(w.Sources) > 0 {
		if err := o.loadScripts(); err != nil {
			return err
		}
	}
	if fs.NArg() > 1 {
		return &pgbenchError{msg: fmt.Sprintf("too many command-line arguments (first is \"%s\")", fs.Arg(1)), code: pgbenchBad, hint: true}
	}
	if o.init {
		if o.anyChanged(benchmarkingOptions) {
			return badOption("some of the specified options cannot be used in initialization (-i) mode")
		}
		w.Setup.NoVacuum = o.noVacuum
		if err := w.Setup.Validate(); err != nil {
			return err // a *setup.Error: pgbenchFail prints its detail and hint
		}
		return nil
	}
	switch {
	case o.anyChanged(initializationOptions):
		return badOption("some of the specified options cannot be used in benchmarking mode")
	case fs.Changed("time") && fs.Changed("transactions"):
		return badOption("specify either a number of transactions (-t) or a duration (-T), not both")
	case o.samplingRate > 0 && !o.log:
		return badOption("log sampling (--sampling-rate) is allowed only when logging transactions (-l)")
	case o.samplingRate > 0 && o.aggInterval > 0:
		return badOption("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
	case o.aggInterval > 0 && !o.log:
		return badOption("log aggregation is allowed only when actually logging transactions")
	case fs.Changed("log-prefix") && !o.log:
		return badOption("log file prefix (--log-prefix) is allowed only when logging transactions (-l)")
	case o.duration > 0 && o.aggInterval > o.duration:
		return badOption("number of seconds for aggregation (%d) must not be higher than test duration (%d)", o.aggInterval, o.duration)
	case o.aggInterval > 0 && o.duration > 0 && o.duration%o.aggInterval != 0:
		return badOption("duration (%d) must be a multiple of aggregation interval (%d)", o.duration, o.aggInterval)
	case o.progressTimestamp && o.progress == 0:
		return badOption("--progress-timestamp is allowed only under --progress")
	case o.maxTries == 0 && o.latencyLimit == 0 && o.duration == 0:
		return badOption("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
	}
	if o.duration == 0 && o.perClient == 0 {
		o.perClient = 10
	}
	if o.threads > o.clients {
		o.threads = o.clients // pgbench: no more threads than clients
	}
	if o.maxTries == 0 {
		o.maxTries = math.MaxInt32
	}
	w.ScaleGiven = fs.Changed("scale")
	w.Threads = o.threads
	w.MaxTries = o.maxTries
	w.VerboseErrors = o.verboseErrors
	w.Debug = o.debug
	w.UntimedCommands = !o.perCommand && o.json == "" // pgbench times commands only for -r; the JSON holds them too
	w.Vacuum, w.VacuumAll = !o.noVacuum, o.vacuumAll
	w.NoAutoInit = true
	return nil
}

// benchmarkingOptions and initializationOptions are the options pgbench
// accepts only when benchmarking, or only with -i.
var (
	benchmarkingOptions = []string{"builtin", "client", "connect", "define", "file", "jobs", "log", "latency-limit",
		"protocol", "skip-some-updates", "progress", "report-per-command", "rate", "select-only", "transactions", "time",
		"vacuum-all", "sampling-rate", "aggregate-interval", "progress-timestamp", "log-prefix", "random-seed",
		"failures-detailed", "max-tries", "verbose-errors", "exit-on-abort"}
	initializationOptions = []string{"fillfactor", "init-steps", "quiet", "unlogged-tables", "tablespace",
		"index-tablespace", "foreign-keys", "partitions", "partition-method"}
)

func (o *pgbenchOpts) anyChanged(names []string) bool {
	for _, n := range names {
		if o.fs.Changed(n) {
			return true
		}
	}
	return false
}

// loadScripts reads and checks the scripts, the defines and the mode,
// with pgbench's messages.
func (o *pgbenchOpts) loadScripts() error {
	if err := o.w.Validate(); err != nil {
		return scriptError(err)
	}
	for _, s := range o.w.Scripts() { // those read from standard input too
		if err := s.Refuse17(); err != nil && !o.rel.has17() {
			return scriptError(err)
		}
	}
	return o.checkBounds()
}

// checkBounds refuses, before anything starts, more clients than the
// machine's memory holds and output files that could not be written.
func (o *pgbenchOpts) checkBounds() error {
	if err := runner.CheckMemory(runner.Config{Clients: o.clients}, o.w, fmt.Sprintf("-c/--client %d", o.clients)); err != nil {
		return badOption("%s", err)
	}
	if o.checkOut == nil {
		return nil
	}
	if o.log {
		name := fmt.Sprintf("%s.%d", o.logPrefix, os.Getpid())
		if err := o.checkOut("--log-prefix", name); err != nil {
			return badOption("could not open logfile \"%s\": %s", name, cannotCreate(name))
		}
	}
	if o.json != "" {
		return o.checkOut("--json", o.json)
	}
	return nil
}

// scriptError words a script's error as pgbench does, with the lines it
// adds: a parse error's context, the builtins after an unknown one.
func scriptError(err error) error {
	pe := &pgbenchError{msg: err.Error(), code: pgbenchBad}
	var parseErr *pgscript.ParseError
	var builtinErr *pgscript.BuiltinError
	switch {
	case errors.As(err, &parseErr):
		pe.more = parseErr.Detail()
	case errors.As(err, &builtinErr):
		pe.more = pgscript.ListBuiltins()
	}
	return pe
}

// target is the database to open, in txnbench's terms, read once: --db
// or a URL given as dbname, else the postgres:// URL pgbench's host,
// port, user and dbname make; libpq's environment variables fill in the
// rest, as for pgbench.
func (o *pgbenchOpts) target() (target.Spec, error) {
	for _, d := range []string{o.db, o.dbname} {
		if sp, err := target.ParseSpec(d); d != "" && err == nil {
			return sp, nil
		}
	}
	return target.ParseSpec(o.conninfoURL())
}

// conninfoURL is the postgres:// URL pgbench's host, port, user and
// dbname (a name or a conninfo string) make.
func (o *pgbenchOpts) conninfoURL() string {
	q := url.Values{}
	if o.host != "" {
		q.Set("host", o.host)
	}
	if o.port != "" {
		q.Set("port", o.port)
	}
	if o.user != "" {
		q.Set("user", o.user)
	}
	db := o.dbname
	if strings.Contains(db, "=") { // a conninfo string: keyword=value pairs
		for _, kv := range strings.Fields(db) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				q.Set(k, strings.Trim(v, "'"))
			}
		}
		db = q.Get("dbname")
		q.Del("dbname")
	}
	if db == "" {
		// pgbench's default: not -U, but the environment's or the
		// system's user name
		db = cmp.Or(os.Getenv("PGDATABASE"), os.Getenv("PGUSER"))
		if u, err := user.Current(); db == "" && err == nil {
			db = u.Username
		}
	}
	u := "postgres:///" + url.PathEscape(db)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func (e *emulator) pgbench(ctx context.Context, args []string) error {
	rel, args, err := takeRelease(args)
	if err != nil {
		return e.pgbenchFail(err)
	}
	o := newPgbenchOpts(rel)
	o.checkOut = e.CheckOutFile
	err = o.parse(args)
	if o.seedInfo != "" {
		fmt.Fprint(e.Stderr, o.seedInfo) // pgbench says so before checking more
	}
	if err != nil {
		return e.pgbenchFail(err)
	}
	switch {
	case o.help:
		printPgbenchHelp(e.Stdout, o.fs, o.rel)
		return nil
	case o.version:
		fmt.Fprintf(e.Stdout, "pgbench (PostgreSQL) %s\n", e.pgbenchVersion(o.rel))
		return nil
	case o.listOnly:
		fmt.Fprint(e.Stderr, pgscript.ListBuiltins())
		return nil
	case o.shown != "":
		fmt.Fprint(e.Stderr, o.shown)
		return nil
	}
	if e.Threads != nil {
		e.Threads(o.threads)
	}
	db, err := o.target()
	if err != nil {
		return e.pgbenchFail(badOption("%v", err))
	}
	if db.Via, err = target.ParseVia(o.via); err != nil {
		return e.pgbenchFail(badOption("%v", err))
	}
	db.Via.PgBouncer = target.PgBouncer{Mode: pooler.DefaultMode, Size: pooler.DefaultSize}
	db.Isolation = o.isolation
	if err := target.CheckIsolation(db.Kind, db.Isolation); err != nil {
		return e.pgbenchFail(badOption("%v", err))
	}
	spec := job.Spec{
		DB: db, PGBin: o.pgBin, PGConf: o.pgConf, Name: "script", Workload: o.w,
		Args: e.Args, Version: e.Version,
		ConnectTimeout: job.NoConnectTimeout, // libpq without connect_timeout waits, so pgbench does
		Log: func(msg string) {
			switch {
			case strings.HasPrefix(msg, "scale option ignored"):
				e.status("pgbench: warning: " + msg)
			case !strings.HasPrefix(msg, "using the existing"):
				e.status(msg)
			}
		},
	}
	if o.init {
		return e.pgbenchInit(ctx, spec, o)
	}
	return e.pgbenchRun(ctx, spec, o)
}

// pgbenchFail prints err as pgbench would and returns its exit status.
func (e *emulator) pgbenchFail(err error) error {
	var pe *pgbenchError
	if !errors.As(err, &pe) {
		pe = &pgbenchError{msg: err.Error(), code: pgbenchBad}
		var se *setup.Error
		if errors.As(err, &se) {
			if se.Detail != "" {
				pe.more += "pgbench: detail: " + se.Detail + "\n"
			}
			if se.Hint != "" {
				pe.more += "pgbench: hint: " + se.Hint + "\n"
			}
		}
	}
	if pe.bare {
		fmt.Fprintln(e.Stderr, "pgbench: "+e.Redact(pe.msg))
	} else {
		fmt.Fprintln(e.Stderr, "pgbench: error: "+e.Redact(pe.msg))
	}
	fmt.Fprint(e.Stderr, pe.more)
	if pe.hint {
		fmt.Fprintln(e.Stderr, `pgbench: hint: Try "txnbench pgbench --help" for more information.`)
	}
	return exitError{code: pe.code}
}

// pgbenchConnectFail prints a failure to connect to db as pgbench does:
// libpq's message, then what pgbench could not do without the connection.
func (e *emulator) pgbenchConnectFail(err error, db, what string) error {
	msg, ok := target.ConnectMessage(err)
	if !ok && errors.Is(err, target.ErrMalformedURL) {
		msg, ok = libpqPortMessage(db)
	}
	if ok {
		return e.pgbenchFail(&pgbenchError{msg: msg, code: pgbenchBad, more: "pgbench: error: " + what + "\n"})
	}
	return e.pgbenchFail(err)
}

func (e *emulator) pgbenchInit(ctx context.Context, spec job.Spec, o *pgbenchOpts) error {
	if spec.DB.Throwaway() {
		return e.pgbenchFail(badOption("initialising temp-postgres would be thrown away at exit: run with -s instead, which initialises it first"))
	}
	db, err := job.Open(ctx, spec, 1)
	if err != nil {
		return e.pgbenchConnectFail(err, spec.DB.String(), "could not create connection for initialization")
	}
	defer db.Close()
	c, err := db.Connect(ctx)
	if err != nil {
		return e.pgbenchConnectFail(err, spec.DB.String(), "could not create connection for initialization")
	}
	defer c.Close(context.Background())
	if err := setup.Run(ctx, c, db.Dialect(), o.w.Setup, e.Stderr); err != nil {
		return e.pgbenchFail(err)
	}
	return nil
}

// runnerConfig is the runner's configuration of pgbench's options: its
// clients, duration or transactions per client, rate, latency limit,
// tries and progress reports (tallied into tally).
func (e *emulator) runnerConfig(o *pgbenchOpts, tally *retryTally) runner.Config {
	cfg := runner.Config{
		Clients: o.clients, Duration: time.Duration(o.duration) * time.Second, Iterations: o.perClient,
		PerClient: o.perClient > 0, Rate: o.rate, LatencyLimit: time.Duration(o.latencyLimit * float64(time.Millisecond)),
		MaxTries: o.maxTries, AbortOnError: true, Progress: time.Hour, Seed: *o.w.RandomSeed | 1,
		NoSlowOps: o.json == "", // only the JSON shows them
	}
	if o.duration > 0 {
		cfg.Iterations = 0
	}
	if o.progress > 0 {
		cfg.Progress = time.Duration(o.progress) * time.Second
		start := time.Now()
		cfg.Observers = []runner.Observer{runner.Funcs{OnTick: func(iv result.Interval) {
			if iv.LengthS < cfg.Progress.Seconds()/2 {
				return // the run's last, partial interval: pgbench does not print it
			}
			e.status(pgbenchProgress(iv, o, start, tally.interval()))
		}}}
	}
	return cfg
}

// pgbenchReport is what pgbench's report after the run says of its
// options and scripts.
func pgbenchReport(o *pgbenchOpts, tally *retryTally) report.PgbenchRun {
	run := report.PgbenchRun{
		Scale: o.w.Scale(), Mode: o.w.Mode, Threads: o.threads, MaxTries: o.maxTries, Unlimited: o.maxTries == math.MaxInt32,
		DurationS: o.duration, PerClient: o.perClient, Connect: o.connect, FailuresDetailed: o.failuresDetailed,
		PerCommand: o.perCommand, Rate: o.rate, LatencyLimitMS: o.latencyLimit, Progress: o.progress > 0,
		Retried: tally.total, ScriptRetried: tally.perScript, Strict: o.output == "strict",
	}
	names := o.w.OpNames()
	for i, s := range o.w.Scripts() {
		ps := report.PgbenchScript{Name: s.Desc, Op: names[i], Weight: s.Weight}
		for _, c := range s.Commands {
			ps.Commands = append(ps.Commands, c.First)
		}
		run.Scripts = append(run.Scripts, ps)
	}
	return run
}

func (e *emulator) pgbenchRun(ctx context.Context, spec job.Spec, o *pgbenchOpts) error {
	if spec.DB.Temporary() {
		o.w.NoAutoInit = false // a throwaway database: make the tables first
	}
	tally := newRetryTally(len(o.w.Sources))
	// Clients write at once: \shell output, debug(), their errors.
	stderr := &lockedWriter{w: e.Stderr}
	o.w.Stdout, o.w.Stderr = &lockedWriter{w: e.Stdout}, stderr
	cfg := e.runnerConfig(o, tally)
	if err := cfg.Validate(); err != nil { // before any server starts
		return e.pgbenchFail(badOption("%v", err))
	}
	spec.Runner = cfg
	spec.Telemetry.Off = o.telemetry == "off"
	if o.connect {
		spec.Conn = connect.Options{Strategy: connect.PerTxn}
	}
	db, err := job.Open(ctx, spec, spec.ServerConnections())
	if err != nil {
		return e.pgbenchConnectFail(err, spec.DB.String(), "could not create connection for setup")
	}
	defer db.Close()
	d := db.Dialect()
	if d.Name == "PostgreSQL" && d.Version == o.rel.version {
		fmt.Fprintf(e.Stdout, "pgbench (%s)\n", e.pgbenchVersion(o.rel))
	} else {
		fmt.Fprintf(e.Stdout, "pgbench (%s, server %s %s)\n", e.pgbenchVersion(o.rel), d.Name, d.Version)
	}

	if o.debug {
		host, port, dbName := target.ConnInfo(db.URL)
		what, n := "nxacts", o.perClient
		if o.duration > 0 {
			what, n = "duration", int64(o.duration)
		}
		fmt.Fprintf(e.Stderr, "pgbench: pghost: %s pgport: %s nclients: %d %s: %d dbName: %s\n", host, port, o.clients, what, n, dbName)
	}
	logs, err := newTxnLog(o, os.Getpid())
	if err != nil {
		return e.pgbenchFail(err)
	}
	// --exit-on-abort: the first client to abort ends the run, and
	// pgbench exits naming that client's thread, without a report.
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var abortOnce sync.Once
	abortedThread := -1
	spec.Runner.OnCycle = func(ev runner.CycleEvent) {
		tally.add(&ev)
		logs.add(&ev)
		if ev.Err != nil && !target.Classify(ev.Err).Retryable() {
			// the interpreter's errors carry pgbench's messages
			for _, msg := range pgbenchMessages(ev.Err) {
				fmt.Fprintln(stderr, "pgbench: error: "+e.Redact(msg))
			}
			if o.exitOnAbort {
				abortOnce.Do(func() {
					abortedThread = pgbenchscript.ThreadOf(ev.Client, o.clients, o.threads)
					stopRun()
				})
			}
		}
	}
	r, err := job.Run(runCtx, spec, db)
	if cerr := logs.close(); cerr != nil && err == nil {
		err = cerr
	}
	if abortedThread >= 0 && ctx.Err() == nil {
		return e.pgbenchFail(&pgbenchError{msg: fmt.Sprintf("Run was aborted due to an error in thread %d", abortedThread), code: pgbenchAborted})
	}
	if r == nil {
		if ctx.Err() != nil {
			return exitError{code: exitcode.Interrupted}
		}
		return e.pgbenchFail(err)
	}
	run := pgbenchReport(o, tally)
	report.Pgbench(e.Stdout, r, run)
	if r.Invariants != nil && len(r.Invariants.Items) > 0 && o.w.ChecksInvariants() && !run.Strict {
		report.Invariants(e.Stdout, r)
	}
	if o.json != "" {
		if serr := r.Save(o.json); serr != nil {
			return e.pgbenchFail(serr)
		}
	}
	switch {
	case err != nil:
		return e.pgbenchFail(err)
	case r.Interrupted:
		return exitError{code: exitcode.Interrupted}
	case r.AbortedClients > 0:
		return e.pgbenchFail(&pgbenchError{msg: "Run was aborted; the above results are incomplete.", code: pgbenchAborted})
	case r.Invariants.Violated():
		return exitError{code: exitcode.Invariants, msg: "invariants violated: the balances did not move together (see the check above)"}
	}
	return nil
}

// pgbenchMessages are the messages pgbench logs for a client's error,
// each after "pgbench: error: " (further lines of a message, such as the
// server's DETAIL, without it).
func pgbenchMessages(err error) []string {
	var l interface{ Lines() []string }
	if errors.As(err, &l) {
		return l.Lines()
	}
	return []string{err.Error()}
}

// retryTally counts transactions retried at least once, overall and per
// script: pgbench reports those, besides the retries.
type retryTally struct {
	mu        sync.Mutex
	total     int64
	perScript []int64
	last      int64 // total at the last progress line
}

// interval returns the transactions retried since the last call.
func (t *retryTally) interval() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.total - t.last
	t.last = t.total
	return n
}

func newRetryTally(scripts int) *retryTally { return &retryTally{perScript: make([]int64, scripts)} }

func (t *retryTally) add(e *runner.CycleEvent) {
	if e.Retries == 0 {
		return
	}
	t.mu.Lock()
	t.total++
	if e.Op >= 0 && e.Op < len(t.perScript) {
		t.perScript[e.Op]++
	}
	t.mu.Unlock()
}

// pgbenchProgress is one -P line as pgbench prints it.
func pgbenchProgress(iv result.Interval, o *pgbenchOpts, start time.Time, retried int64) string {
	var cycle, lag *result.IntervalOp
	var failed, retries int64
	for i := range iv.Ops {
		op := &iv.Ops[i]
		switch op.Name {
		case result.CycleOp:
			cycle = op
		case result.LagOp:
			lag = op
		default:
			failed += op.Errors
			retries += op.Retries
		}
	}
	if cycle == nil {
		return ""
	}
	var b strings.Builder
	if o.progressTimestamp {
		fmt.Fprintf(&b, "progress: %.3f s", float64(start.Add(time.Duration(iv.ElapsedS*float64(time.Second))).UnixMilli())/1000)
	} else {
		fmt.Fprintf(&b, "progress: %.1f s", iv.ElapsedS)
	}
	fmt.Fprintf(&b, ", %.1f tps, lat %.3f ms stddev %.3f, %d failed", float64(cycle.Count)/max(iv.LengthS, 1e-9), cycle.Mean, cycle.Hist.StdDev(), failed)
	if o.rate > 0 && lag != nil {
		fmt.Fprintf(&b, ", lag %.3f ms", lag.Mean)
		if o.latencyLimit > 0 {
			fmt.Fprintf(&b, ", %d skipped", cycle.Skipped)
		}
	}
	if o.maxTries != 1 {
		fmt.Fprintf(&b, ", %d retried, %d retries", retried, retries)
	}
	return b.String()
}

// lockedWriter serialises the writes of concurrent clients.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// isolationValue is --isolation, read by target.ParseIsolation.
type isolationValue struct{ l *target.Isolation }

func (v isolationValue) String() string {
	if v.l == nil {
		return ""
	}
	return string(*v.l)
}

func (v isolationValue) Set(s string) (err error) {
	*v.l, err = target.ParseIsolation(s)
	return err
}

func (isolationValue) Type() string { return "string" }
