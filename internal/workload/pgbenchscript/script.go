package pgbenchscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pgbench/interp"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	pgscript "github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/userfile"
	"github.com/txnbench/txnbench/internal/workload"
)

// MaxScripts is pgbench's limit on the number of scripts of a run.
const MaxScripts = 128

// Source is one script as given: a file or a builtin, with its weight.
type Source struct {
	Builtin bool
	Arg     string // FILE[@W] or NAME[@W]
}

// Workload runs pgbench scripts. The fields after the flags are set by
// `txnbench pgbench` to get pgbench's exact behaviour.
type Workload struct {
	Sources []Source
	Defines []string // NAME=VALUE
	Mode    string   // simple, extended or prepared
	Setup   setup.Options
	// Sizes are the data of txnbench's own builtins (YCSB, sysbench).
	Sizes Sizes
	// SetupFile and CheckFile are --setup and --check: SQL run before the
	// run, and the user's invariants checked after it.
	SetupFile, CheckFile string
	// ScaleGiven is set when -s was given (pgbench prefers the tables'
	// scale when running builtins, and warns that -s was ignored).
	ScaleGiven bool

	// RandomSeed is pgbench's --random-seed; nil uses the run's --seed.
	RandomSeed *uint64
	// Threads is pgbench's -j: clients share their thread's script-choice
	// stream as pgbench's do. 0 means 1.
	Threads int
	// Vacuum runs pgbench's pre-run vacuum (branches, tellers, truncating
	// history; accounts too with VacuumAll) before the run, in the
	// dialect's words; txnbench's own builtins alone (YCSB, sysbench) do
	// not use pgbench's tables, and skip it.
	Vacuum, VacuumAll bool
	// NoAutoInit refuses to create missing pgbench tables (pgbench's
	// behaviour); txnbench creates them like every workload's schema.
	NoAutoInit bool
	// NoInit (--no-init) leaves a database without pgbench's tables as it
	// is when only custom scripts run.
	NoInit bool
	// Stdout receives what \shell commands print, Stderr debug() lines
	// and shell errors; nil discards them.
	Stdout, Stderr io.Writer
	// MaxTries is the runner's, to tell a command's errors that led to a
	// retry from failures in the per-command report.
	MaxTries int
	// Debug writes pgbench's --debug lines to Stderr.
	Debug bool
	// VerboseErrors writes pgbench's --verbose-errors lines to Stderr for
	// every serialization or deadlock error, retried or not.
	VerboseErrors bool
	// Untagged sends each SQL command exactly as its script has it, as
	// pgbench does (`txnbench pgbench` sets it). Otherwise each starts
	// with its script's workload.OpTag, so the server's time per
	// statement (pg_stat_statements) adds up to each script's server(ms).
	Untagged bool
	// UntimedCommands leaves the commands' latencies unmeasured (their
	// steps keep their failures and retries): `txnbench pgbench` sets it
	// unless -r or --json shows them, as pgbench times each command only
	// with -r. It saves two clock reads and a latency record per command.
	UntimedCommands bool

	fs       *pflag.FlagSet // the flags, where Flags registered them
	scripts  []*pgscript.Script
	mode     target.QueryMode
	defines  map[string]string
	cfg      *interp.Config
	choose   []*chooser // one per thread
	stmts    *statements
	before   *balances
	clients  int
	extra    *extraState
	checks   []userCheck
	setupSQL []userCheck
	caps     target.Capabilities // the database's, for the checks' read-only transactions
	// inserts marks the scripts of txnbench's own builtins that insert
	// rows: their transactions count their inserts.
	inserts []bool
	// roles name the scripts the stale-read count sees (ycsbRole), fresh
	// its counts: nil without ycsb-read.
	roles []string
	fresh *freshness
}

// New returns the workload with pgbench's defaults.
func New() *Workload {
	return &Workload{Mode: "simple", Setup: setup.Defaults(), Sizes: Sizes{RecordCount: 1000, Tables: 1, TableSize: 10000}}
}

var _ workload.Configurable = (*Workload)(nil)

// Flags registers the workload's options.
func (w *Workload) Flags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.VarP(&sourceFlag{w: w}, "file", "f", "a pgbench script file, optionally @weight (repeatable)")
	fs.VarP(&sourceFlag{w: w, builtin: true}, "builtin", "b", "a builtin script: tpcb-like, simple-update, select-only, ycsb-a to ycsb-f, oltp-read-write, oltp-read-only, oltp-write-only, oltp-point-select, oltp-update-index or oltp-insert, optionally @weight (repeatable)")
	fs.StringArrayVarP(&w.Defines, "define", "D", nil, "set a script variable: NAME=VALUE (repeatable)")
	fs.StringVarP(&w.Mode, "protocol", "M", w.Mode, "how statements are sent: simple, extended or prepared")
	fs.IntVarP(&w.Setup.Scale, "scale", "s", w.Setup.Scale, "scale of the pgbench tables the builtin scripts use (100,000 accounts each), when txnbench creates them")
	fs.IntVar(&w.Setup.Partitions, "partitions", 0, "partition pgbench_accounts into this many parts, when txnbench creates it")
	fs.StringVar(&w.Setup.PartitionMethod, "partition-method", "range", "range or hash, with --partitions")
	fs.BoolVar(&w.Setup.ForeignKeys, "foreign-keys", false, "create foreign keys between the pgbench tables, when txnbench creates them")
	fs.BoolVar(&w.NoInit, "no-init", false, "use the tables already in --db and create none: custom scripts run without pgbench's tables where they are missing, builtin scripts refuse to start without theirs")
	fs.Int64Var(&w.Sizes.RecordCount, "record-count", w.Sizes.RecordCount, "rows of YCSB's usertable (ycsb-a to ycsb-f), when txnbench loads it")
	fs.IntVar(&w.Sizes.Tables, "tables", w.Sizes.Tables, "sysbench tables sbtest1..N (oltp-*)")
	fs.Int64Var(&w.Sizes.TableSize, "table-size", w.Sizes.TableSize, "rows of each sysbench table, when txnbench loads them")
	fs.StringVar(&w.SetupFile, "setup", "", "SQL file run after the tables are made and before the run (views, data your scripts need)")
	fs.StringVar(&w.CheckFile, "check", "", "SQL file of your invariants: each query, named by the comment line before it, must return true or no rows")
	workload.DataFlags(fs, "scale", "partitions", "partition-method", "foreign-keys", "record-count", "tables", "table-size", "setup")
	workload.RuntimeFlags(fs, "file", "builtin", "define", "protocol", "no-init", "check")
}

// sourceFlag keeps -f and -b in the order given: pgbench numbers scripts
// that way.
type sourceFlag struct {
	w       *Workload
	builtin bool
}

func (f *sourceFlag) String() string { return "" }
func (f *sourceFlag) Type() string {
	if f.builtin {
		return "NAME[@W]"
	}
	return "FILE[@W]"
}
func (f *sourceFlag) Set(v string) error {
	f.w.Sources = append(f.w.Sources, Source{Builtin: f.builtin, Arg: v})
	return nil
}

// Validate parses the scripts, the defines and the mode.
func (w *Workload) Validate() error {
	if len(w.Sources) == 0 {
		return errors.New("no script given: add -f FILE or -b tpcb-like (or simple-update, select-only)")
	}
	switch w.Mode {
	case "simple":
		w.mode = target.QuerySimple
	case "extended":
		w.mode = target.QueryExtended
	case "prepared":
		w.mode = target.QueryPrepared
	default:
		return fmt.Errorf("invalid query mode (-M) %q: choose simple, extended or prepared", w.Mode)
	}
	w.defines = map[string]string{}
	for _, d := range w.Defines {
		name, value, err := pgscript.ParseDefine(d)
		if err != nil {
			return err
		}
		w.defines[name] = value
	}
	w.scripts = nil
	var total int64
	var err error
	for i, src := range w.Sources {
		s, err := Load(src)
		if err != nil {
			return err
		}
		if i == MaxScripts {
			return fmt.Errorf("at most %d SQL scripts are allowed", MaxScripts)
		}
		total += int64(s.Weight)
		if w.mode != target.QuerySimple {
			if err := s.CheckParams(); err != nil {
				return err
			}
		}
		w.scripts = append(w.scripts, s)
	}
	if total == 0 {
		// the chooser draws from [0, total)
		return errors.New("total script weight must not be zero")
	}
	w.roles, w.fresh = make([]string, len(w.scripts)), nil
	for i, s := range w.scripts {
		if w.roles[i] = ycsbRole(s, w.Sources[i].Builtin); w.roles[i] == "ycsb-read" {
			w.fresh = &freshness{last: map[string]write{}}
		}
	}
	if err := w.validateExtras(); err != nil {
		return err
	}
	if w.setupSQL, err = readSQLFile(w.SetupFile, "--setup", false); err != nil {
		return err
	}
	if w.checks, err = readSQLFile(w.CheckFile, "--check", true); err != nil {
		return err
	}
	if w.Setup.Partitions == 0 {
		if w.fs != nil && w.fs.Changed("partition-method") {
			return errors.New("--partition-method without --partitions: add --partitions N, or leave --partition-method out")
		}
		w.Setup.PartitionMethod = ""
	}
	return w.Setup.Validate()
}

// Files are the script, --setup and --check files the workload reads.
func (w *Workload) Files() []string {
	var files []string
	for _, src := range w.Sources {
		if name, _, err := pgscript.ParseWeighted(src.Arg); err == nil && !src.Builtin && name != "-" {
			files = append(files, name)
		}
	}
	for _, f := range []string{w.SetupFile, w.CheckFile} {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// Load reads and parses one script source.
func Load(src Source) (*pgscript.Script, error) {
	name, weight, err := pgscript.ParseWeighted(src.Arg)
	if err != nil {
		return nil, err
	}
	var s *pgscript.Script
	if src.Builtin {
		s, err = pgscript.Builtin(name)
	} else {
		var text []byte
		if name == "-" {
			text, err = userfile.ReadStream(os.Stdin, "standard input", maxSQLFile)
		} else {
			text, err = userfile.Read(name, maxSQLFile, "a script file")
		}
		if err != nil {
			var pe *fs.PathError
			if !errors.As(err, &pe) {
				return nil, &openError{msg: err.Error(), err: err} // refused: a device, a pipe, too large
			}
			// pgbench's words, with strerror's capital
			msg := pe.Err.Error()
			if msg != "" {
				msg = strings.ToUpper(msg[:1]) + msg[1:]
			}
			verb := "open" // or read: a directory opens, then fails to read
			if pe.Op == "read" {
				verb = "read"
			}
			return nil, &openError{msg: fmt.Sprintf("could not %s file \"%s\": %s", verb, name, msg), err: err}
		}
		s, err = pgscript.Parse(name, string(text))
	}
	if err != nil {
		return nil, err
	}
	s.Weight = weight
	return s, nil
}

// openError is a script file that cannot be read, in pgbench's words.
type openError struct {
	msg string
	err error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.err }

// Seeds are the random streams Init derived, after Init.
func (w *Workload) Seeds() prng.Seeds { return w.cfg.Seeds }

var _ workload.DataReporter = (*Workload)(nil)

// Data is the scale of the pgbench tables as Init read it from
// pgbench_branches (as pgbench does), when a builtin script uses them.
func (w *Workload) Data() map[string]int64 {
	if w.cfg == nil {
		return nil
	}
	m := map[string]int64{}
	fam := w.families()
	if fam[pgscript.FamilyPgbench] {
		m["scale"] = int64(w.cfg.Scale)
	}
	if fam[pgscript.FamilyYCSB] {
		m["record_count"] = w.Sizes.RecordCount
	}
	if fam[pgscript.FamilySysbench] {
		m["tables"], m["table_size"] = int64(w.Sizes.Tables), w.Sizes.TableSize
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// Scale is the scale the scripts see as :scale, known after Init.
func (w *Workload) Scale() int {
	if w.cfg == nil {
		return w.Setup.Scale
	}
	return w.cfg.Scale
}

// ChecksInvariants reports whether the run's invariants are known: every
// script is a builtin, or --check gives them.
func (w *Workload) ChecksInvariants() bool {
	_, all := w.usesBuiltin()
	return all || w.CheckFile != ""
}

// Scripts are the parsed scripts, after Validate.
func (w *Workload) Scripts() []*pgscript.Script { return w.scripts }

// Settings records the scripts and mode.
func (w *Workload) Settings() map[string]any {
	scripts := make([]string, len(w.scripts))
	for i, s := range w.scripts {
		scripts[i] = fmt.Sprintf("%s@%d", s.Name, s.Weight)
	}
	m := map[string]any{"scripts": scripts, "protocol": w.Mode, "scale": w.Scale()}
	if len(w.Defines) > 0 {
		m["defines"] = w.Defines
	}
	return m
}

// OpNames are the scripts, one op each.
func (w *Workload) OpNames() []string {
	names := make([]string, len(w.scripts))
	seen := map[string]int{}
	for i, s := range w.scripts {
		name := OpName(s)
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		names[i] = name
	}
	return names
}

// OpName is a script's short name: the builtin's name or the file's.
func OpName(s *pgscript.Script) string {
	name := s.Name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// usesBuiltin reports whether any script is one of pgbench's builtins
// (they need the pgbench tables), and all whether every script is a
// builtin of pgbench's or txnbench's (their effects are known, so the
// invariants can be checked).
func (w *Workload) usesBuiltin() (any, all bool) {
	all = true
	for i, src := range w.Sources {
		any = any || src.Builtin && (i >= len(w.scripts) || pgscript.FamilyOf(w.scripts[i].Name) == pgscript.FamilyPgbench)
		all = all && src.Builtin
	}
	return any, all
}

// Init makes sure the pgbench tables exist when a builtin script needs
// them, reads the scale as pgbench does, vacuums when asked, and prepares
// the clients' random streams.
func (w *Workload) Init(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions) (created bool, err error) {
	scale := w.Setup.Scale
	builtin, _ := w.usesBuiltin()
	fam := w.families()
	extrasOnly := !builtin && (fam[pgscript.FamilyYCSB] || fam[pgscript.FamilySysbench])
	w.clients, w.caps = max(o.Clients, 1), d.Caps
	switch {
	case extrasOnly:
		// txnbench's own builtins need their own tables, not pgbench's
	case builtin:
		if scale, created, err = w.tables(ctx, c, d, o, true); err != nil {
			return false, err
		}
	case !w.NoAutoInit && !w.NoInit:
		// custom scripts: a database without pgbench's tables (a
		// throwaway one) gets them at -s, as scripts expect; :scale
		// stays -s, as in pgbench
		if _, created, err = w.tables(ctx, c, d, o, false); err != nil {
			return false, err
		}
	}
	loaded, err := w.initExtras(ctx, c, o)
	if err != nil {
		return false, err
	}
	created = created || loaded
	if err := w.runSetup(ctx, c); err != nil {
		return false, err
	}
	if w.Vacuum && !extrasOnly {
		vacuum(ctx, c, d.Caps, w.VacuumAll, o.Progress)
	}
	seed := o.Seed
	if w.RandomSeed != nil {
		seed = *w.RandomSeed
	}
	threads := max(w.Threads, 1)
	_, defaultSeed := w.defines["default_seed"]
	seeds := prng.DeriveDefined(seed, w.clients, threads, defaultSeed)
	w.stmts = newStatements(w.scripts, w.OpNames(), w.clients)
	w.inserts = make([]bool, len(w.scripts))
	for i, src := range w.Sources {
		f := pgscript.FamilyOf(w.scripts[i].Name)
		w.inserts[i] = src.Builtin && (f == pgscript.FamilyYCSB || f == pgscript.FamilySysbench) &&
			strings.Contains(w.scripts[i].Text, "\\set inserted 1")
	}
	w.cfg = &interp.Config{
		Scripts: w.scripts, Mode: w.mode, Defines: w.defines, Scale: scale, Seeds: seeds,
		Stdout: w.Stdout, Stderr: w.Stderr, Debug: w.Debug,
	}
	if !w.UntimedCommands {
		w.cfg.OnCommand = w.stmts.record
	}
	if !w.Untagged {
		for _, name := range w.OpNames() {
			w.cfg.Tags = append(w.cfg.Tags, workload.OpTag(name))
		}
	}
	w.choose = make([]*chooser, threads)
	for i := range w.choose {
		w.choose[i] = newChooser(w.scripts, seeds.Choose[i])
	}
	return created, nil
}

// pgbenchTables are pgbench's tables: those pgbench -i made are used as
// they are, a partial set is dropped only when txnbench made it.
var pgbenchTables = workload.Schema{Data: "pgbench", What: "pgbench tables", Names: setup.Tables, Standard: true}

var _ workload.EmbeddedChecker = (*Workload)(nil)

// CheckEmbedded refuses the table options SQLite has no equivalent for
// (--partitions, --foreign-keys), before the run starts: setup.Run would
// refuse them once the tables are made.
func (w *Workload) CheckEmbedded() error {
	err := w.Setup.CheckEmbedded("SQLite")
	if se := (*setup.Error)(nil); errors.As(err, &se) && se.Hint != "" { // the fix on the one line
		return fmt.Errorf("%s: %s", se.Msg, strings.ToLower(se.Hint[:1])+strings.TrimSuffix(se.Hint[1:], "."))
	}
	return err
}

// tables finds the scale of the pgbench tables, creating them first when
// they are missing (or --reinit asked) unless NoAutoInit is set.
func (w *Workload) tables(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions, builtin bool) (scale int, created bool, err error) {
	if o.Fresh || !w.NoAutoInit {
		create, err := w.prepare(ctx, c, o, pgbenchTables)
		if err != nil {
			return 0, false, err
		}
		if create {
			o.Progress(fmt.Sprintf("creating the pgbench tables at scale %d", w.Setup.Scale))
			if err := setup.Run(ctx, c, d, w.Setup, progressWriter{o.Progress}); err != nil {
				return 0, false, err
			}
			return w.Setup.Scale, true, workload.MarkLoaded(ctx, c, pgbenchTables.Data, nil)
		}
	}
	scale, err = setup.Scale(ctx, c)
	if err != nil && !builtin {
		return w.Setup.Scale, false, nil // the custom scripts may not need them
	}
	if err != nil {
		return 0, false, err
	}
	if w.ScaleGiven && builtin { // pgbench warns even when the two agree
		o.Progress(fmt.Sprintf("scale option ignored, using count from pgbench_branches table (%d)", scale))
	}
	return scale, false, nil
}

// progressWriter passes setup's lines on to a progress function.
type progressWriter struct{ f func(string) }

func (p progressWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\r\n"), "\n") {
		if line = strings.TrimRight(line, "\r"); line != "" {
			p.f(line)
		}
	}
	return len(b), nil
}

// vacuum does what pgbench does before a run: errors are reported and
// ignored (custom scripts may not use the pgbench tables at all), in
// pgbench's lines: the first error follows "starting vacuum..." on its
// line, "end." ends the last. A dialect without PostgreSQL's DDL gets
// what setup's vacuum step runs there (ANALYZE) and DELETE for TRUNCATE,
// which SQLite lacks.
func vacuum(ctx context.Context, c target.Conn, caps target.Capabilities, accounts bool, progress func(string)) {
	vacuumSQL := func(verb, table string) string { // verb: vacuum, vacuum analyze
		if !caps.PostgresDDL {
			return caps.AnalyzeSQL(table)
		}
		return verb + " " + table
	}
	truncate := "truncate pgbench_history"
	if !caps.PostgresDDL {
		truncate = "DELETE FROM pgbench_history"
	}
	run := func(line string, stmts ...string) {
		for _, s := range stmts {
			if _, err := c.Exec(ctx, s); err != nil {
				progress(line + "pgbench: error: " + strings.TrimSuffix(target.ResultMessage(err, s), "\n"))
				progress("pgbench: detail: (ignoring this error and continuing anyway)")
				line = ""
			}
		}
		progress(line + "end.")
	}
	run("starting vacuum...", vacuumSQL("vacuum", "pgbench_branches"), vacuumSQL("vacuum", "pgbench_tellers"), truncate)
	if accounts { // -v
		run("starting vacuum pgbench_accounts...", vacuumSQL("vacuum analyze", "pgbench_accounts"))
	}
}

var _ workload.Starter = (*Workload)(nil)

// Start records the balances and keys the invariant check compares
// against.
func (w *Workload) Start(ctx context.Context, c target.Conn) error {
	if err := w.startExtras(ctx, c); err != nil {
		return err
	}
	if builtin, all := w.usesBuiltin(); !all || !builtin {
		return nil
	}
	b, err := readBalances(ctx, c)
	if err != nil {
		return err
	}
	w.before = &b
	return nil
}

// NewClient makes client id with pgbench's random streams.
func (w *Workload) NewClient(id int, _ *rand.Rand) workload.Client {
	cl := &client{ic: interp.NewClient(w.cfg, id), choose: w.choose[ThreadOf(id, w.clients, len(w.choose))], stmts: w.stmts, id: id}
	cl.ops = make([]workload.Op, len(w.scripts))
	for i, name := range w.OpNames() {
		cl.ops[i] = workload.Op{Name: name, Run: func(ctx context.Context, c target.Conn) error {
			sc, ok := c.(target.ScriptConn)
			if !ok {
				return fmt.Errorf("this connection cannot run pgbench scripts: %w", workload.ErrAbortClient)
			}
			cl.tries++
			err := cl.ic.Run(ctx, sc, i)
			if w.inserts[i] {
				v, _ := cl.ic.Variable("inserted")
				w.counted(v == "1", err)
			}
			if err == nil && w.fresh != nil && w.roles[i] != "" {
				w.fresh.observe(cl, w.roles[i])
			}
			if err != nil && ctx.Err() == nil {
				// declared here: taking its address for errors.As would
				// otherwise put it on the heap for every transaction
				var se *interp.SQLError
				if errors.As(err, &se) {
					class := target.Classify(err)
					retried := class.Retryable() && cl.tries < w.MaxTries && !c.Broken()
					cl.failed(se.Script, se.Command, class, retried)
					if w.VerboseErrors && class.Retryable() {
						w.verbose(se, retried, cl.tries)
					}
				}
			}
			return err
		}}
	}
	return cl
}

// verbose writes pgbench's --verbose-errors lines for a retryable error
// at the given try.
func (w *Workload) verbose(se *interp.SQLError, retried bool, try int) {
	if w.Stderr == nil {
		return
	}
	what := "ends the failed transaction"
	if retried {
		what = "repeats the transaction after the error"
	}
	tries := fmt.Sprintf("%d/%d", try, w.MaxTries)
	if w.MaxTries == math.MaxInt32 { // --max-tries 0: unlimited
		tries = strconv.Itoa(try)
	}
	fmt.Fprintf(w.Stderr, "pgbench: %s\npgbench: client %d %s (try %s)\n", se.Error(), se.Client, what, tries)
}

// ThreadOf is the pgbench thread client id belongs to: pgbench deals
// clients to threads in contiguous blocks, as evenly as it can.
func ThreadOf(id, clients, threads int) int {
	dealt := 0
	for t := 0; t < threads; t++ {
		n := (clients - dealt + threads - t - 1) / (threads - t)
		if id < dealt+n {
			return t
		}
		dealt += n
	}
	return threads - 1
}

type client struct {
	ic     *interp.Client
	choose *chooser
	ops    []workload.Op
	tries  int // attempts at the current transaction
	stmts  *statements
	id     int
	// lastKey and lastValue are its last acknowledged ycsb-update.
	lastKey, lastValue string
}

// RecordSteps takes the recorder of the client's statements.
func (c *client) RecordSteps(rec workload.StepRecorder) { c.stmts.recs[c.id] = rec }

// failed counts an error of one command: a retry when the runner will try
// the transaction again (a retryable error with tries left), else a
// failure, as pgbench -r reports them.
func (c *client) failed(script, cmd int, class errclass.Class, retried bool) {
	rec := c.stmts.recs[c.id]
	if rec == nil {
		return
	}
	if i := c.stmts.first[script] + cmd; retried {
		rec.RetryStep(i)
	} else {
		rec.FailStep(i, class)
	}
}

func (c *client) Choose() int { return c.choose.next() }

// NextCycle starts a new transaction: a retry of it reuses its random
// values, as pgbench's do.
func (c *client) NextCycle() time.Duration {
	c.ic.Begin()
	c.tries = 0
	return 0
}

func (c *client) Ops() []workload.Op { return c.ops }

// chooser picks scripts by weight from one thread's stream, as pgbench's
// chooseScript does.
type chooser struct {
	mu      sync.Mutex
	rs      prng.State
	weights []int64
	total   int64
}

// Chooser returns what picks each transaction's script, by weight, for
// the clients of one thread whose stream is seeded with seed; after
// Validate.
func (w *Workload) Chooser(seed uint64) func() int { return newChooser(w.scripts, seed).next }

func newChooser(scripts []*pgscript.Script, seed uint64) *chooser {
	ch := &chooser{}
	ch.rs.Seed(seed)
	for _, s := range scripts {
		ch.weights = append(ch.weights, int64(s.Weight))
		ch.total += int64(s.Weight)
	}
	return ch
}

func (ch *chooser) next() int {
	if len(ch.weights) == 1 {
		return 0
	}
	ch.mu.Lock()
	w := ch.rs.Rand(0, ch.total-1)
	ch.mu.Unlock()
	i := 0
	for {
		w -= ch.weights[i]
		i++
		if w < 0 {
			return i - 1
		}
	}
}

// statements are the commands of every script as steps (pgbench -r),
// which the runner records: each client's recorder, by client id, and
// where each script's first command is among the steps.
type statements struct {
	first []int
	steps []workload.Step
	recs  []workload.StepRecorder
}

func newStatements(scripts []*pgscript.Script, ops []string, clients int) *statements {
	st := &statements{recs: make([]workload.StepRecorder, clients)}
	for k, s := range scripts {
		st.first = append(st.first, len(st.steps))
		for i, c := range s.Commands {
			st.steps = append(st.steps, workload.Step{Name: result.StatementName(ops[k], i, c.First), Kind: result.KindStatement})
		}
	}
	return st
}

// record is interp's OnCommand: it runs on the client's goroutine.
func (st *statements) record(client, script, cmd int, d time.Duration) {
	if rec := st.recs[client]; rec != nil {
		rec.RecordStep(st.first[script]+cmd, d)
	}
}

var _ workload.Stepper = (*Workload)(nil)

// Steps are the commands of every script, in order, after Init.
func (w *Workload) Steps() []workload.Step {
	if w.stmts == nil {
		return nil
	}
	return w.stmts.steps
}

var _ workload.Tables = (*Workload)(nil)

// Tables is pgbench's: scripts, builtin or custom, run on the pgbench_*
// tables; but a run of txnbench's own builtins alone (YCSB, sysbench)
// takes none of another run's work for its own (it inserts in its own
// block of keys, and its check counts that block and the loaded rows,
// which those builtins never remove): "".
func (w *Workload) Tables() string {
	fam := w.families()
	if builtin, all := w.usesBuiltin(); all && !builtin && (fam[pgscript.FamilyYCSB] || fam[pgscript.FamilySysbench]) {
		return ""
	}
	return "pgbench"
}
