package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// studyFlags are the study's own flags, beside every flag of run.
type studyFlags struct {
	vary   []string
	repeat int
	out    string
	settle time.Duration

	compare string // read into parsedStudyFlags.mode
}

func (s *studyFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&s.vary, "vary", nil, "a run setting and its values, e.g. --vary variant=jsonb,manual,text (repeatable: every combination runs)")
	fs.IntVar(&s.repeat, "repeat", 1, "run every cell this many times, interleaved (A B A B), and report medians")
	fs.StringVar(&s.out, "out", "", "directory for the results: one JSON per run, study.json, study.md, study.csv and study.html (default study-DATE-TIME)")
	fs.DurationVar(&s.settle, "settle", 3*time.Second, "pause before each run, after the server's statistics are reset")
	fs.StringVar(&s.compare, "compare", string(study.CompareAxis), "what the changes compare: axis (neighbouring values of each varied setting, the others held), first (every cell against the first) or none")
	declareFlags(fs, kindControl, "vary", "repeat", "out", "settle", "compare")
}

func (a *app) studyCommand() *cobra.Command {
	parent := &cobra.Command{
		Use:   "study WORKLOAD [run flags] --vary NAME=V1,V2 [--vary ...] [--repeat N]",
		Short: "Run every combination of the varied settings with the same isolation and compare them side by side",
		Long: `study runs one specification (every flag of "txnbench run WORKLOAD") once per
combination of the --vary values, each on a fresh schema after the server's
statistics are reset and a settle pause, repeats them interleaved, and prints
per op the medians of every cell, then their comparisons (--compare axis: the
change between neighbouring values of each varied setting, the others held),
plus a throughput ladder when clients vary. It writes one JSON per run, study.json,
study.md, study.csv (one row per op per cell) and study.html (charts) into --out.

  txnbench study train-events --db temp-postgres --vary variant=jsonb,manual,text --duration 60s
  txnbench study train-events --db temp-postgres --vary clients=4,8,16,32 --repeat 2`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
				return cmd.Help()
			}
			return a.runStudy(cmd.Context(), args)
		},
	}
	return parent
}

// studyCell is one cell, ready to run.
type studyCell struct {
	cell study.Cell
	spec job.Spec
}

func (a *app) runStudy(ctx context.Context, args []string) error {
	var p studyPlan
	if err := a.planStudy(args, &p); err != nil || p.runs == nil {
		return err
	}
	if err := makeOut(p.out); err != nil {
		return err
	}
	_, err := a.executeStudy(ctx, &p)
	return err
}

// studyPlan is a study whose every cell was checked, ready to run; runs
// is nil when there is nothing to run (--help).
type studyPlan struct {
	name   string
	runs   []studyCell
	varies []study.Vary
	sf     parsedStudyFlags
	out    string
	// next and sizing make the study a search (capacity): next chooses
	// the cells as it goes, adding each new one's run to runs, and every
	// cell runs on the database of sizing (the search's bound).
	next   func(cells []study.Cell, results [][]*result.Result) (study.Cell, bool, error)
	sizing *job.Spec
}

// workloadArg reads the WORKLOAD argument that starts a command's
// arguments (use shows the command), and returns the rest.
func workloadArg(args []string, use string) (workload.Def, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return workload.Def{}, nil, usage(fmt.Errorf("no workload given: %s, with WORKLOAD one of %s", use, strings.Join(workload.Names(), ", ")))
	}
	def, err := workload.Lookup(args[0])
	if err != nil {
		return workload.Def{}, nil, usage(err)
	}
	return def, args[1:], nil
}

// planStudy checks a study's arguments (WORKLOAD and flags) and every
// cell's specification into p, starting nothing.
func (a *app) planStudy(args []string, p *studyPlan) error {
	def, args, err := workloadArg(args, "txnbench study WORKLOAD --vary NAME=V1,V2")
	if err != nil {
		return err
	}
	// Parse everything once to check the flags and read the study's own.
	fs, first, sf, err := studyFlagSet(def, args)
	if err != nil {
		return err
	}
	a.recordSettings(sf.settings)
	if sf.help {
		fs.SetOutput(a.stdout)
		fmt.Fprintf(a.stdout, "txnbench study %s [run flags] --vary NAME=V1,V2 [--vary ...] [--repeat N]\n\n", def.Name)
		fs.PrintDefaults()
		return nil
	}
	var varies []study.Vary
	for _, v := range sf.vary {
		vy, err := study.ParseVary(v)
		if err != nil {
			return usage(err)
		}
		if !isSetting(fs, vy.Key) {
			return usage(fmt.Errorf("unknown --vary name %q: vary a flag of txnbench run %s (e.g. clients, conn, db, pool-max, or the workload's own: %s)", vy.Key, def.Name, strings.Join(workloadSettings(def, fs), ", ")))
		}
		varies = append(varies, vy)
	}
	cells, err := study.Expand(varies)
	if err != nil {
		return usage(err)
	}
	if sf.repeat < 1 {
		return usage(fmt.Errorf("--repeat %d: give at least 1", sf.repeat))
	}
	if sf.settle < 0 {
		return usage(fmt.Errorf("--settle %s is negative: give 0 or more", sf.settle))
	}
	if sf.mode, err = study.ParseCompare(sf.compare); err != nil {
		return usage(err)
	}
	// Every cell is checked before anything starts.
	var runs []studyCell
	for _, c := range cells {
		cfs, rs, _, err := studyFlagSet(def, args)
		if err != nil {
			return err
		}
		for _, s := range c.Settings {
			if err := cfs.Set(s.Key, s.Value); err != nil {
				return usage(fmt.Errorf("--vary %s=%s: %v", s.Key, s.Value, err))
			}
		}
		spec, err := rs.spec(a, cfs)
		if err != nil {
			return fmt.Errorf("cell %s: %w", c.Label(), err)
		}
		spec.Fresh = true
		spec.Runner.OnPhase = a.status
		if c.Shown, err = serverShown(c, spec); err != nil {
			return usage(fmt.Errorf("cell %s: %w", c.Label(), err))
		}
		runs = append(runs, studyCell{cell: c, spec: spec})
	}
	distinctShown(runs)
	specs, labels := make([]job.Spec, len(runs)), make([]string, len(runs))
	for i, r := range runs {
		specs[i], labels[i] = r.spec, r.cell.Label()
	}
	if err := job.CheckSharedFailover(specs, labels, sf.repeat); err != nil {
		return usage(err)
	}
	sf.metricsAddr = first.f.metricsAddr // checked with every cell's flags
	sf.dash = first.f.dash
	sf.minSuccess = first.f.minSuccess
	out := sf.out
	if out == "" {
		out = "study-" + time.Now().Format("20060102-150405")
	}
	config, _ := fs.GetString("config")
	inputs := []string{config}
	for _, r := range runs {
		inputs = append(inputs, workload.Files(r.spec.Workload)...)
	}
	if err := checkOutHoldsNoInput(out, inputs); err != nil {
		return err
	}
	*p = studyPlan{name: def.Name, runs: runs, varies: varies, sf: *sf, out: out}
	return nil
}

// serverShown names a cell's varied server by its version: "pg 17.10"
// for --vary pg-bin=DIR and for --vary db=temp-postgres@17, whose
// directories validate found.
func serverShown(c study.Cell, spec job.Spec) (map[string]string, error) {
	var key string
	if _, ok := c.Value("pg-bin"); ok {
		key = "pg-bin"
	} else if _, ok := c.Value("db"); ok && spec.PGBin != "" && takesPGBin(spec.DB) {
		key = "db"
	} else {
		return nil, nil
	}
	v, err := localdb.BinVersion(spec.PGBin)
	if err != nil {
		return nil, err
	}
	return map[string]string{key: "pg " + v}, nil
}

// distinctShown adds the value to the names serverShown gave when two
// values of a setting share one (two directories of one version).
func distinctShown(runs []studyCell) {
	values := map[string]map[string]bool{} // key\x00shown -> values
	for _, r := range runs {
		for k, sh := range r.cell.Shown {
			v, _ := r.cell.Value(k)
			if values[k+"\x00"+sh] == nil {
				values[k+"\x00"+sh] = map[string]bool{}
			}
			values[k+"\x00"+sh][v] = true
		}
	}
	for _, r := range runs {
		for k, sh := range r.cell.Shown {
			if v, _ := r.cell.Value(k); len(values[k+"\x00"+sh]) > 1 {
				r.cell.Shown[k] = sh + " (" + v + ")"
			}
		}
	}
}

// parsedStudyFlags is what studyFlagSet read besides the run flags.
type parsedStudyFlags struct {
	studyFlags
	help        bool
	settings    []string // set from the environment or --config (flagSettings)
	metricsAddr string   // a run flag, served for the whole study
	minSuccess  float64  // a run flag, applied to every run of every cell
	mode        study.CompareMode
	dash        dashboardFlags // run flags, for the whole study
}

// workloadSettings are the names of def's own flags that fs takes as run
// settings, in the order the workload declares them.
func workloadSettings(def workload.Def, fs *pflag.FlagSet) []string {
	own := pflag.NewFlagSet(def.Name, pflag.ContinueOnError)
	own.SortFlags = false
	workload.Flags(def.New(), own)
	var names []string
	own.VisitAll(func(f *pflag.Flag) {
		if isSetting(fs, f.Name) {
			names = append(names, f.Name)
		}
	})
	return names
}

// studyFlagSet parses args with the study's flags and a fresh workload's
// run flags.
func studyFlagSet(def workload.Def, args []string) (*pflag.FlagSet, *runSpec, *parsedStudyFlags, error) {
	return studyFlagSetWith(def, args, nil)
}

// studyFlagSetWith is studyFlagSet with the flags more registers too (a
// capacity search's own).
func studyFlagSetWith(def workload.Def, args []string, more func(*pflag.FlagSet)) (*pflag.FlagSet, *runSpec, *parsedStudyFlags, error) {
	fs := pflag.NewFlagSet("study "+def.Name, pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder)) // errors are returned, not printed
	rs := newRunSpec(def, fs, true)
	// A run's own output files: a study refuses them (and hides them from
	// its help), it writes its runs' files into --out instead.
	runOnly := flagsOfKind(fs, kindOutput)
	for _, name := range runOnly {
		fs.MarkHidden(name)
	}
	sf := &parsedStudyFlags{}
	sf.register(fs)
	fs.BoolVarP(&sf.help, "help", "h", false, "help")
	fs.String("config", "", configUsage)
	declareFlags(fs, kindControl, "help", "config")
	if more != nil {
		more(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, nil, usage(err)
	}
	var err error
	if sf.settings, err = flagSettings(fs, "txnbench study "+def.Name); err != nil {
		return nil, nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, usage(fmt.Errorf("unexpected argument %q: flags only after the workload", fs.Arg(0)))
	}
	for _, name := range runOnly {
		if fs.Changed(name) {
			return nil, nil, nil, usage(fmt.Errorf("--%s does not apply to a study: its --out directory has study.json, study.md, study.html, study.csv and one JSON per run", name))
		}
	}
	return fs, rs, sf, nil
}

// executeStudy runs a planned study into the existing directory p.out,
// prints its summary and returns the study's outcome beside the error
// that sets the exit status.
func (a *app) executeStudy(ctx context.Context, p *studyPlan) (*study.Outcome, error) {
	lm, err := a.serveMetrics(p.sf.metricsAddr) // before any server starts
	if err != nil {
		return nil, err
	}
	defer lm.close()
	ld, err := a.openDashboard(p.sf.dash) // before any server starts too
	if err != nil {
		return nil, err
	}
	defer ld.close()
	// Cells on the same database share it; every run gets a fresh schema.
	specs := make([]job.Spec, len(p.runs))
	cells := make([]study.Cell, len(p.runs))
	for i, r := range p.runs {
		specs[i], cells[i] = r.spec, r.cell
	}
	dbOf := func(i int) int { return i }
	if p.sizing != nil { // a search's cells share one database, sized for its bound
		specs, dbOf = []job.Spec{*p.sizing}, func(int) int { return 0 }
	}
	dbs := job.NewShared(specs)
	defer dbs.Close()
	statsNoted := false
	var final report.View // study.html's
	env := study.Env{
		Open: func(ctx context.Context, i int) error {
			_, err := dbs.Open(ctx, dbOf(i))
			return err
		},
		Run: func(ctx context.Context, i int) (*result.Result, error) {
			r := p.runs[i] // this run's copy
			db, err := dbs.Open(ctx, dbOf(i))
			if err != nil {
				return nil, err
			}
			if err := job.Isolate(ctx, db, p.sf.settle); errors.Is(err, job.ErrStatsNotReset) {
				if !statsNoted {
					a.status("note: this role cannot reset the server's statistics (pg_stat_reset needs a superuser, or GRANT EXECUTE ON FUNCTION pg_stat_reset() TO it): each run's telemetry compares its own before and after snapshots instead")
				}
				statsNoted = true
			} else if err != nil && ctx.Err() == nil {
				return nil, err
			}
			lm.track(&r.spec, db, r.cell.Label())
			ld.watch(&r.spec, r.cell.Label())
			res, err := job.Run(ctx, r.spec, db)
			if err != nil {
				err = fmt.Errorf("cell %s: %w", r.cell.Label(), err)
			}
			return res, err
		},
		HTML: func(path string, s *study.Summary, firsts []*result.Result, all [][]*result.Result) error {
			final = report.StudyView(s, firsts, all)
			return writeAtomic(path, func(w io.Writer) error { return final.Write(w) })
		},
		CSV: func(path string, s *study.Summary) error {
			return writeAtomic(path, func(w io.Writer) error { return report.StudyCSV(w, s) })
		},
		Status:   a.status,
		Markdown: report.StudyMarkdown,
	}
	if ld != nil {
		env.Done = ld.studySoFar
	}
	o, runErr := study.Run(ctx, study.Plan{Workload: p.name, Cells: cells, Vary: p.varies, Repeat: p.sf.repeat, Out: p.out, Args: a.maskedArgs(), Compare: p.sf.mode, Next: p.next}, env)
	if o != nil && o.Summary != nil {
		if derr := ld.done(final, o.Summary, studyOver(ctx, o.Summary)); derr != nil && runErr == nil {
			runErr = derr
		}
	}
	if o != nil && o.Markdown != "" {
		fmt.Fprint(a.stdout, "\n"+o.Markdown)
	}
	switch {
	case runErr != nil && !(ctx.Err() != nil && errors.Is(runErr, context.Canceled)):
		return o, runErr
	case ctx.Err() != nil: // a cell cut short by the interrupt (in its load, say) is no failure
		return o, exitError{code: exitcode.Interrupted}
	}
	if o.Summary == nil {
		return o, nil
	}
	for _, c := range o.Summary.Cells {
		if c.Invariants().Violated() {
			return o, exitError{code: exitcode.Invariants, msg: "invariants violated in cell " + c.Label}
		}
	}
	for i, rs := range o.Results {
		for _, res := range rs {
			if err := failedVerdict(res, p.sf.minSuccess); err != nil {
				return o, exitError{code: exitcode.Failure, msg: "cell " + p.runs[i].cell.Label() + ": " + err.Error()}
			}
		}
	}
	return o, nil
}

// maskedArgs is Main's command line with the passwords of its URLs masked.
func (a *app) maskedArgs() []string {
	var args []string
	for _, arg := range a.args {
		args = append(args, target.MaskURL(arg))
	}
	return args
}

// takesPGBin reports whether the cell's --db, read once into sp, names a
// throwaway server whose engine runs the binaries of --pg-bin.
func takesPGBin(sp target.Spec) bool {
	return sp.Throwaway() && engine.Of(sp).Flags().Bin == "pg-bin"
}
