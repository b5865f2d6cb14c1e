package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/job"
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
own database and a fresh schema, and writes suite.md (a summary table and
what was held constant), suite.json and every scenario's own files into
--out. See docs/suites.md.

  txnbench suite list examples/suite.toml
  txnbench suite run examples/suite.toml --tier smoke`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var tier, out string
	run := &cobra.Command{
		Use:   "run FILE --tier TIER [--out DIR]",
		Short: "Run a tier's scenarios in order, each isolated, and write suite.md and suite.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSuite(cmd.Context(), args[0], tier, out)
		},
	}
	run.Flags().StringVar(&tier, "tier", "", "the tier to run (suite list FILE shows them)")
	run.Flags().StringVar(&out, "out", "", "directory for suite.md, suite.json and every scenario's files (default suite-NAME-TIER-DATE-TIME)")
	list := &cobra.Command{
		Use:   "list FILE",
		Short: "Check a suite file and list its scenarios and tiers",
		Args:  cobra.ExactArgs(1),
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

// notSettings are flags that are not settings of what is measured.
var notSettings = map[string]bool{"json": true, "cpu-profile": true, "html": true, "out": true, "help": true,
	"progress": true, "reinit": true, "vary": true, "metrics-addr": true}

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
		if notSettings[k] {
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

// addWorkloadSettings adds the settings the workload reported in its
// results (names with dashes, like its flags) that the scenario's
// settings lack; one that differs between a study's runs is "varies".
func (a *app) addWorkloadSettings(m map[string]string, rs ...*result.Result) {
	found := map[string]string{}
	for i, r := range rs {
		for k, v := range r.Settings {
			if k == "notes" {
				continue
			}
			k = strings.ReplaceAll(k, "_", "-")
			val := a.redact(fmt.Sprint(v))
			if prev, ok := found[k]; ok && prev != val || !ok && i > 0 {
				val = "varies"
			}
			found[k] = val
		}
	}
	for k, v := range found {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
}

func (a *app) maskArgs(args []string) []string {
	out := make([]string, len(args))
	for i, s := range args {
		out[i] = a.redact(s)
	}
	return out
}

func (a *app) runSuite(ctx context.Context, path, tier, out string) error {
	f, err := a.loadSuite(path)
	if err != nil {
		return err
	}
	if tier == "" {
		return usage(fmt.Errorf("no --tier given: choose one of %s (suite list %s shows the scenarios)", strings.Join(f.Tiers(), ", "), path))
	}
	entries, err := f.Tier(tier)
	if err != nil {
		return usage(err)
	}
	started := time.Now()
	if out == "" {
		out = fmt.Sprintf("suite-%s-%s-%s", f.Name, tier, started.Format("20060102-150405"))
	}
	if _, err := os.Stat(filepath.Join(out, "suite.json")); err == nil {
		return usage(fmt.Errorf("--out %s already holds a suite's results: choose another directory", out))
	}
	if err := checkOutTree("--out", out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	rep := &suite.Report{
		Format: suite.Format, Name: f.Name, File: path, Tier: tier,
		Tool:    result.Tool{Version: version(), Go: runtime.Version()},
		Args:    a.maskArgs(a.args),
		Started: started,
	}
	failed, violated, interrupted := 0, 0, false
	for i, e := range entries {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		a.status(fmt.Sprintf("[%d/%d] scenario %s (%s %s, tier %s), %s elapsed", i+1, len(entries), e.Name, e.Workload, e.Kind(), tier, time.Since(started).Round(time.Second)))
		sc, r, err := a.runScenario(ctx, e, out)
		if r != nil && rep.Machine.OS == "" {
			rep.Machine = r.Machine
		}
		var ee exitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.code == ExitInvariants:
			violated++
		case errors.As(err, &ee) && ee.code == ExitInterrupted || ctx.Err() != nil:
			interrupted = true
			sc.Error = suite.Interrupted
		default:
			failed++
			sc.Error = a.redact(err.Error())
			a.status(fmt.Sprintf("scenario %s failed: %s; going on with the next", e.Name, sc.Error))
		}
		rep.Scenarios = append(rep.Scenarios, sc)
		rep.Ended = time.Now()
		if err := a.writeSuite(rep, out); err != nil {
			return err
		}
		if interrupted {
			break
		}
	}
	rep.Ended = time.Now()
	if err := a.writeSuite(rep, out); err != nil {
		return err
	}
	a.status(fmt.Sprintf("suite %s tier %s: %d scenarios in %s, written to %s (suite.md, suite.json)", f.Name, tier, len(rep.Scenarios), rep.Ended.Sub(started).Round(time.Second), out))
	switch {
	case violated > 0:
		return exitError{code: ExitInvariants, msg: fmt.Sprintf("invariants violated in %d scenarios: data was lost or corrupted (see %s)", violated, filepath.Join(out, "suite.md"))}
	case interrupted:
		return exitError{code: ExitInterrupted}
	case failed > 0:
		return exitError{code: ExitFailure, msg: fmt.Sprintf("%d of %d scenarios failed (see %s)", failed, len(rep.Scenarios), filepath.Join(out, "suite.md"))}
	}
	return nil
}

// runScenario runs one scenario into dir, isolated: its own database,
// opened and closed around it, and a fresh schema. It returns the
// scenario's outcome, a result for the machine's description, and the
// error that run or study would exit with.
func (a *app) runScenario(ctx context.Context, e suite.Entry, dir string) (suite.Scenario, *result.Result, error) {
	sc := suite.Scenario{Name: e.Name, Kind: e.Kind(), Workload: e.Workload, Tiers: e.Tiers}
	studyDir := filepath.Join(dir, e.Name)
	p, err := a.planScenario(e, studyDir)
	if err != nil {
		return sc, nil, err
	}
	sc.Args, sc.Settings = p.args, p.settings
	if p.study == nil {
		p.rs.f.json = filepath.Join(dir, e.Name+".json")
		p.rs.f.html = filepath.Join(dir, e.Name+".html")
		r, err := a.runWorkload(ctx, p.spec, &p.rs.f)
		if r != nil {
			sc.Result = e.Name + ".json"
			sc.Summary = suite.RunSummary(r)
			sc.Server = r.Server.Dialect + " " + r.Server.Version
			a.addWorkloadSettings(sc.Settings, r)
		}
		return sc, r, err
	}
	if err := os.MkdirAll(studyDir, 0o755); err != nil {
		return sc, nil, fmt.Errorf("scenario directory: %w", err)
	}
	sp := p.study
	sum, err := a.executeStudy(ctx, sp.name, sp.runs, sp.varies, &sp.sf, sp.out)
	if sum == nil {
		return sc, nil, err
	}
	sc.Study = filepath.ToSlash(filepath.Join(e.Name, "study.json"))
	var first *result.Result
	var all []*result.Result
	cells := make([][]*result.Result, len(sum.Cells))
	for i, c := range sum.Cells {
		for _, file := range c.Results {
			r, lerr := result.Load(file)
			if lerr != nil {
				return sc, first, fmt.Errorf("reading the study's result: %w", lerr)
			}
			cells[i] = append(cells[i], r)
			all = append(all, r)
			if first == nil {
				first = r
			}
		}
	}
	sc.Summary = suite.StudySummary(cells)
	a.addWorkloadSettings(sc.Settings, all...)
	if len(sum.Cells) > 0 {
		sc.Server = sum.Cells[0].Server
	}
	return sc, first, err
}

// writeSuite writes suite.json and suite.md into dir.
func (a *app) writeSuite(rep *suite.Report, dir string) error {
	if err := rep.Save(filepath.Join(dir, "suite.json")); err != nil {
		return err
	}
	var md strings.Builder
	suite.WriteMarkdown(&md, rep)
	if err := os.WriteFile(filepath.Join(dir, "suite.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("writing the suite report: %w", err)
	}
	return nil
}
