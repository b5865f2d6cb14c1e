package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/suite"
	"github.com/txnbench/txnbench/internal/workload"
)

func (a *app) suiteCommand() *cobra.Command {
	parent := &cobra.Command{
		Use:   "suite",
		Short: "Run the scenarios of a suite file by tier and report them together",
		Long: `A suite file (TOML or YAML) lists named scenarios, each a run or a study of
one workload with its flags, tagged with tiers (smoke, nightly, soak, ...).
"suite run FILE --tier T" runs the tier's scenarios in file order, each on its
own database and a fresh schema, and writes suite.md (the summary, phase
and database tables and what was held constant), suite.json and every
scenario's own files into --out; it prints the tables when it ends.
"--tier a,b" runs several tiers, "--tier all" every one. See docs/suites.md.

  txnbench suite list examples/suite.toml
  txnbench suite run examples/suite.toml --tier smoke
  txnbench suite run examples/suite.toml --tier smoke,nightly`,
		// so that a FILE given without run (suite FILE --tier T) is named,
		// not taken for an unknown command or its flags for unknown ones
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "-h") || slices.Contains(args, "--help") || len(args) == 0 {
				return cmd.Help()
			}
			if arg := args[0]; !strings.HasPrefix(arg, "-") {
				return usage(fmt.Errorf("%q is not a suite command: run a suite file with txnbench suite run %s --tier TIER (txnbench suite list %s shows its tiers)", arg, arg, arg))
			}
			return usage(fmt.Errorf("unknown flag: %s (suite takes a command: txnbench suite run FILE --tier TIER, or suite list FILE)", args[0]))
		},
	}
	var tier, out string
	var dash dashboardFlags
	run := &cobra.Command{
		Use:   "run FILE --tier TIER[,TIER...|all] [--out DIR]",
		Short: "Run the tiers' scenarios in order, each isolated, and write suite.md and suite.json",
		Args:  oneArg("suite run", "FILE, the suite file (TOML or YAML), as in txnbench suite run examples/suite.toml --tier smoke"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSuite(cmd.Context(), args[0], tier, out, dash)
		},
	}
	run.Flags().StringVar(&tier, "tier", "", "the tiers to run, comma-separated, or all (suite list FILE shows them)")
	run.Flags().StringVar(&out, "out", "", "directory for suite.md, suite.json and every scenario's files (default suite-NAME-TIER-DATE-TIME)")
	dash.register(run.Flags())
	list := &cobra.Command{
		Use:   "list FILE",
		Short: "Check a suite file and list its scenarios and tiers",
		Args:  oneArg("suite list", "FILE, the suite file (TOML or YAML), as in txnbench suite list examples/suite.toml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := a.loadSuite(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "suite %s: %d scenarios, tiers %s\n\n", f.Name, len(f.Entries), strings.Join(f.Tiers(), ", "))
			for _, e := range f.Entries {
				fmt.Fprintf(a.stdout, "%s  (%s of %s; tiers %s)\n", e.Name, e.Kind(), e.Workload, strings.Join(e.Tiers, ", "))
				fmt.Fprintf(a.stdout, "    %s\n", a.redact(strings.Join(append(e.Args, e.VaryArgs()...), " ")))
			}
			return nil
		},
	}
	parent.AddCommand(run, list)
	return parent
}

// loadSuite reads a suite file and checks every scenario with the flag
// sets run and study use; a bad file is a usage error.
func (a *app) loadSuite(path string) (*suite.File, error) {
	f, err := suite.Load(path, func(e suite.Entry) error {
		_, err := a.planScenario(e, "")
		return err
	})
	if err != nil {
		return nil, usage(err)
	}
	return f, nil
}

// scenarioPlan is one scenario checked and ready to run.
type scenarioPlan struct {
	settings map[string]string
	args     []string // the equivalent command line, passwords masked
	// A run: its spec and flags. A study: its plan.
	rs    *runSpec
	spec  job.Spec
	study *studyPlan
}

// planScenario parses a scenario's flags with the same flag sets as
// "txnbench run" (or study) and checks them; out is the study's directory.
func (a *app) planScenario(e suite.Entry, out string) (*scenarioPlan, error) {
	def, err := workload.Lookup(e.Workload)
	if err != nil {
		return nil, err
	}
	p := &scenarioPlan{}
	if e.Kind() == suite.KindRun {
		fs := pflag.NewFlagSet("run "+def.Name, pflag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		rs := newRunSpec(def, fs, true)
		if err := fs.Parse(e.Args); err != nil {
			return nil, fmt.Errorf("%w (a flag of txnbench run %s)", err, def.Name)
		}
		p.settings = a.settings(fs, e.Args, nil)
		spec, err := rs.spec(a, fs)
		if err != nil {
			return nil, err
		}
		p.args = a.maskArgs(append([]string{"txnbench", "run", def.Name}, e.Args...))
		spec.Fresh = true
		spec.Args = p.args
		p.rs, p.spec = rs, spec
		return p, nil
	}
	args := append(append([]string{def.Name}, e.Args...), e.VaryArgs()...)
	args = append(args, "--repeat="+strconv.Itoa(e.Repeat))
	fs, _, _, err := studyFlagSet(def, args[1:])
	if err != nil {
		return nil, fmt.Errorf("%w (a flag of txnbench study %s)", err, def.Name)
	}
	p.settings = a.settings(fs, e.Args, e.Vary)
	if out != "" {
		args = append(args, "--out="+out)
	}
	var sp studyPlan
	if err := a.planStudy(args, &sp); err != nil {
		return nil, err
	}
	p.args = a.maskArgs(append([]string{"txnbench", "study"}, args...))
	for i := range sp.runs {
		sp.runs[i].spec.Args = append(append([]string{}, p.args...), sp.runs[i].cell.Args()...)
	}
	p.study = &sp
	return p, nil
}

// coreSettings are run flags a scenario's settings always show, given or
// not; other flags show when given (the workload's own settings are added
// from its result).
var coreSettings = []string{"db", "clients", "duration", "conn", "via"}

// settings are the flags the scenario gives (as given: a list's values
// joined by commas) and the core run flags, outputs left out, a varied
// flag's value its values joined by commas.
func (a *app) settings(fs *pflag.FlagSet, given []string, vary []suite.VaryKey) map[string]string {
	m := map[string]string{}
	for _, arg := range given {
		k, v, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		if !isSetting(fs, k) {
			continue
		}
		if prev, ok := m[k]; ok {
			v = prev + "," + v
		}
		m[k] = v
	}
	for _, k := range coreSettings {
		f := fs.Lookup(k)
		if _, ok := m[k]; ok || f == nil || k == "duration" && fs.Changed("iterations") {
			continue
		}
		m[k] = f.Value.String()
	}
	if m["db"] == "" {
		m["db"] = "sqlite (temporary)"
	}
	for _, v := range vary {
		m[v.Key] = strings.Join(v.Values, ",")
	}
	for k, v := range m {
		m[k] = a.redact(v)
	}
	return m
}

func (a *app) maskArgs(args []string) []string {
	out := make([]string, len(args))
	for i, s := range args {
		out[i] = a.redact(s)
	}
	return out
}

func (a *app) runSuite(ctx context.Context, path, tier, out string, dash dashboardFlags) error {
	if err := dash.validate(); err != nil {
		return err
	}
	f, err := a.loadSuite(path)
	if err != nil {
		return err
	}
	if tier == "" {
		return usage(fmt.Errorf("no --tier given: choose one of %s (suite list %s shows the scenarios)", strings.Join(f.Tiers(), ", "), path))
	}
	entries, tiers, err := f.Select(tier)
	if err != nil {
		return usage(err)
	}
	started := time.Now()
	if out == "" {
		name := strings.Join(tiers, "+")
		if strings.TrimSpace(tier) == suite.AllTiers {
			name = suite.AllTiers
		}
		out = fmt.Sprintf("suite-%s-%s-%s", f.Name, name, started.Format("20060102-150405"))
	}
	if err := checkOutHoldsNoInput(out, []string{path}); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(out, "suite.json")); err == nil {
		return usage(fmt.Errorf("--out %s already holds a suite's results: choose another directory", out))
	}
	ld, err := a.openDashboard(dash) // its scenarios show on it
	if err != nil {
		return err
	}
	defer ld.close()
	a.dash = ld
	if err := makeOut(out); err != nil {
		return err
	}
	rep := &suite.Report{
		Format: suite.Format, Name: f.Name, File: path, Tier: strings.Join(tiers, ","),
		Tool:    result.Tool{Version: version(), Go: runtime.Version()},
		Args:    a.maskArgs(a.args),
		Started: started,
	}
	t, err := suite.Run(ctx, rep, entries, out, suite.Env{Run: a.runScenario, Redact: a.redact, Status: a.status, Markdown: report.SuiteMarkdown})
	if err != nil {
		return err
	}
	if ld != nil {
		if err := ld.done(ld.last, rep, fmt.Sprintf("the suite is over, %d scenarios (the last one's figures)", len(rep.Scenarios))); err != nil {
			return err
		}
	}
	report.SuiteTables(a.stdout, rep)
	switch {
	case t.Violated > 0:
		return exitError{code: exitcode.Invariants, msg: fmt.Sprintf("invariants violated in %d scenarios: data was lost or corrupted (see %s)", t.Violated, filepath.Join(out, "suite.md"))}
	case t.Interrupted:
		return exitError{code: exitcode.Interrupted}
	case t.Failed > 0:
		return exitError{code: exitcode.Failure, msg: fmt.Sprintf("%d of %d scenarios failed (see %s)", t.Failed, len(rep.Scenarios), filepath.Join(out, "suite.md"))}
	}
	return nil
}

// runScenario runs one scenario, isolated: its own database, opened and
// closed around it, and a fresh schema. A run writes base.json and
// base.html, a study its files into the directory base. It returns what
// ran and the error that run or study would exit with.
func (a *app) runScenario(ctx context.Context, e suite.Entry, base string) (suite.Ran, error) {
	var ran suite.Ran
	p, err := a.planScenario(e, base)
	if err != nil {
		return ran, err
	}
	ran.Args, ran.Settings = p.args, p.settings
	if a.dash != nil {
		a.dash.scope = "Suite scenario " + e.Name
	}
	if p.study == nil {
		p.rs.f.json = base + ".json"
		p.rs.f.html = base + ".html"
		r, err := a.runWorkload(ctx, p.spec, &p.rs.f)
		if r != nil {
			ran.Results = [][]*result.Result{{r}}
		}
		ran.End = scenarioEnd(err)
		return ran, err
	}
	o, err := a.executeStudy(ctx, p.study)
	if o != nil {
		ran.Results = o.Results
	}
	ran.End = scenarioEnd(err)
	return ran, err
}

// scenarioEnd tells the suite how a scenario ended from the error it
// would exit with.
func scenarioEnd(err error) suite.End {
	var ee exitError
	switch {
	case err == nil:
		return suite.EndOK
	case errors.As(err, &ee) && ee.code == exitcode.Invariants:
		return suite.EndViolated
	case errors.As(err, &ee) && ee.code == exitcode.Interrupted:
		return suite.EndInterrupted
	}
	return suite.EndFailed
}
