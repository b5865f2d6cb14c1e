package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/workload"
)

// capacityRepeat is how many times each step runs unless --repeat says
// otherwise, and capacityOut the name of --out unless given (DATE-TIME
// the search's start).
const (
	capacityRepeat = 2
	capacityOut    = "capacity-DATE-TIME"
)

// capacityFlags are a capacity search's own flags, beside a study's.
type capacityFlags struct {
	slo       []string
	by        string
	from, max float64
	precision float64 // %
	maxRepeat int
	maxSteps  int
}

func (c *capacityFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&c.slo, "slo", nil, "a goal every step must meet: OP.STAT<=DURATION (STAT p50, p90, p95, p99, mean, max; e.g. 'cycle.p99<=50ms'), OP.count or OP.rate against a number, or errors<=PCT% (repeatable: all must hold)")
	fs.StringVar(&c.by, "by", "rate", "what is searched: rate (--rate, open loop: latency counts from the scheduled start) or clients (--clients, closed loop)")
	fs.Float64Var(&c.from, "from", 0, "the first value tried (default: rate 10, clients 1)")
	fs.Float64Var(&c.max, "max", 0, "the highest value tried (default: rate 100000, clients 1024)")
	fs.Float64Var(&c.precision, "precision", 5, "stop bisecting when the highest value met and the lowest missed are within this % of each other")
	fs.IntVar(&c.maxRepeat, "max-repeat", 4, "repeat a step at most this many times while its repetitions disagree (then it counts as missed)")
	fs.IntVar(&c.maxSteps, "max-steps", 12, "run at most this many steps (values)")
	declareFlags(fs, kindControl, "slo", "by", "from", "max", "precision", "max-repeat", "max-steps")
	// A study's --repeat and --out, with capacity's defaults: the help,
	// the search and docs/capacity.md read them from here.
	rep := fs.Lookup("repeat")
	rep.Value.Set(strconv.Itoa(capacityRepeat))
	rep.DefValue = rep.Value.String()
	rep.Usage = "run every step this many times, and again up to --max-repeat while its repetitions disagree"
	fs.Lookup("out").Usage = "directory for capacity.md, capacity.json and the study's files: one JSON per run, study.json, study.md, study.csv and study.html (default " + capacityOut + ")"
	for _, name := range []string{"vary", "compare"} { // a study's, refused: --by varies
		fs.MarkHidden(name)
	}
}

func (a *app) capacityCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "capacity WORKLOAD [run flags] --slo GOAL [--slo ...] [--by rate|clients]",
		Short: "Search for the highest rate (or clients) at which every goal, e.g. cycle.p99<=50ms, is met",
		Long: `capacity searches --rate (open loop) or, with --by clients, --clients
(closed loop) for the highest value at which every --slo goal is met: it
doubles from --from while the goals are met, then bisects between the highest
value that met them and the lowest that missed, until they are within
--precision % (or --max, --max-steps is hit). Each step is repeated --repeat
times (default ` + strconv.Itoa(capacityRepeat) + `), and again up to --max-repeat while its repetitions
disagree. It is a study whose next cell depends on the last: every step runs
like a study's cell (a fresh schema, the server's statistics reset, a settle
pause), and --out (default ` + capacityOut + `) gets the study's files plus
capacity.json and capacity.md (the ladder). It exits 1 when no value tried met
the goals. "txnbench capacity WORKLOAD --help" lists every flag. See
docs/capacity.md.

  txnbench capacity train-events --db temp-postgres --slo 'cycle.p99<=50ms' --slo 'errors<=0.1%' --duration 20s
  txnbench capacity script -b tpcb-like --db temp-postgres --by clients --slo 'cycle.p95<=20ms' --duration 30s`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
				return cmd.Help()
			}
			return a.runCapacity(cmd.Context(), args)
		},
	}
}

func (a *app) runCapacity(ctx context.Context, args []string) error {
	def, args, err := workloadArg(args, "txnbench capacity WORKLOAD --slo 'cycle.p99<=50ms'")
	if err != nil {
		return err
	}
	var cf capacityFlags
	fs, first, sf, err := studyFlagSetWith(def, args, cf.register)
	if err != nil {
		return err
	}
	if sf.help {
		fs.SetOutput(a.stdout)
		fmt.Fprintf(a.stdout, "txnbench capacity %s [run flags] --slo GOAL [--slo ...] [--by rate|clients]\n\n", def.Name)
		fs.PrintDefaults()
		return nil
	}
	s, err := cf.search(fs, sf)
	if err != nil {
		return err
	}
	if err := checkCapacityFlags(fs, s, sf); err != nil {
		return err
	}
	// cellSpec checks and makes the specification of one step.
	cellSpec := func(v float64) (study.Cell, job.Spec, error) {
		c := study.Cell{Settings: []study.Setting{{Key: s.Key, Value: s.Value(v)}}}
		cfs, rs, _, err := studyFlagSetWith(def, args, new(capacityFlags).register)
		if err != nil {
			return c, job.Spec{}, err
		}
		if err := cfs.Set(s.Key, s.Value(v)); err != nil {
			return c, job.Spec{}, usage(fmt.Errorf("--%s %s: %v", s.Key, s.Value(v), err))
		}
		spec, err := rs.spec(a, cfs)
		if err != nil {
			return c, job.Spec{}, fmt.Errorf("%s: %w", c.Label(), err)
		}
		spec.Fresh = true
		spec.Runner.OnPhase = a.status
		return c, spec, nil
	}
	// The first value and the bound are checked before anything starts.
	_, firstSpec, err := cellSpec(s.From)
	if err != nil {
		return err
	}
	if err := job.CheckLadderFailover(firstSpec); err != nil {
		return usage(err)
	}
	_, sizing, err := cellSpec(s.Max)
	if err != nil {
		return err
	}
	if err := study.CheckOps(s.Goals, def.Name, runner.OpNames(sizing.Runner, sizing.Workload, sizing.Conn.WaitName())); err != nil {
		return usage(err)
	}
	sf.metricsAddr = first.f.metricsAddr
	sf.dash = first.f.dash
	sf.minSuccess = first.f.minSuccess
	sf.repeat = s.MinReps
	out := sf.out
	if out == "" {
		out = strings.Replace(capacityOut, "DATE-TIME", time.Now().Format("20060102-150405"), 1)
	}
	config, _ := fs.GetString("config")
	if err := checkOutHoldsNoInput(out, append(workload.Files(sizing.Workload), config)); err != nil {
		return err
	}
	if err := makeOut(out); err != nil {
		return err
	}
	p := studyPlan{name: def.Name, varies: []study.Vary{{Key: s.Key}}, sf: *sf, out: out, sizing: &sizing}
	p.next = func(cells []study.Cell, results [][]*result.Result) (study.Cell, bool, error) {
		v, done, err := s.Next(lastStep(s, cells, results))
		if err != nil {
			return study.Cell{}, false, usage(err)
		}
		if done {
			return study.Cell{}, false, nil
		}
		c, spec, err := cellSpec(v)
		if err != nil {
			return c, false, err
		}
		for _, r := range p.runs {
			if r.cell.Label() == c.Label() {
				return c, true, nil // another repetition
			}
		}
		p.runs = append(p.runs, studyCell{cell: c, spec: spec})
		return c, true, nil
	}
	_, runErr := a.executeStudy(ctx, &p)
	if len(s.Steps) == 0 || len(s.Steps[0].Reps) == 0 {
		return runErr
	}
	interrupted := ctx.Err() != nil || runErr == nil && s.Stop == ""
	switch { // the ladder always says why it ends
	case interrupted:
		s.Stop = "interrupted: the ladder is what finished"
	case s.Stop == "":
		s.Stop = "a step could not run: " + errclass.FirstLine(runErr)
	}
	md, err := writeCapacity(out, s)
	fmt.Fprint(a.stdout, "\n"+md)
	if err != nil {
		return err
	}
	a.status("capacity search written to " + out + " (capacity.md, capacity.json, and the study's files)")
	return capacityOutcome(runErr, interrupted, s)
}

// lastStep is the results of the search's last step so far (nil before
// the first).
func lastStep(s *study.Search, cells []study.Cell, results [][]*result.Result) []*result.Result {
	var last []*result.Result
	if n := len(s.Steps); n > 0 {
		label := study.Cell{Settings: []study.Setting{{Key: s.Key, Value: s.Value(s.Steps[n-1].Value)}}}.Label()
		for i, c := range cells {
			if c.Label() == label {
				last = results[i]
			}
		}
	}
	return last
}

// capacityOutcome is how the search ended, as the command's exit: its
// error, interrupted, or no value that met every goal.
func capacityOutcome(runErr error, interrupted bool, s *study.Search) error {
	switch {
	case runErr != nil:
		return runErr
	case interrupted:
		return exitError{code: exitcode.Interrupted, msg: "interrupted: the ladder above is what finished"}
	case s.Best == 0:
		fix := "lower --from"
		if n := len(s.Steps); n > 0 && s.Steps[n-1].Empty {
			fix = "the last step measured nothing: give a longer --duration"
		}
		return exitError{code: exitcode.Failure, msg: fmt.Sprintf("no %s tried met every goal: %s", s.Key, fix)}
	}
	return nil
}

// checkCapacityFlags refuses the run flags capacity sets itself.
func checkCapacityFlags(fs *pflag.FlagSet, s *study.Search, sf *parsedStudyFlags) error {
	for _, name := range []string{"vary", "compare"} {
		if fs.Changed(name) {
			return usage(fmt.Errorf("--%s does not apply to capacity: it varies --%s itself (--by)", name, s.Key))
		}
	}
	if fs.Changed(s.Key) {
		return usage(fmt.Errorf("--%s is what capacity searches: give --from and --max instead", s.Key))
	}
	if sf.settle < 0 {
		return usage(fmt.Errorf("--settle %s is negative: give 0 or more", sf.settle))
	}
	return nil
}

// writeCapacity writes the search's capacity.json and capacity.md into
// out, and returns the Markdown.
func writeCapacity(out string, s *study.Search) (string, error) {
	var md strings.Builder
	report.CapacitySearch(&md, s)
	var js strings.Builder
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false) // the goals read as given: cycle.p99<=50ms
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return md.String(), fmt.Errorf("capacity.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, "capacity.json"), []byte(js.String()), 0o644); err != nil {
		return md.String(), err
	}
	if err := os.WriteFile(filepath.Join(out, "capacity.md"), []byte(md.String()), 0o644); err != nil {
		return md.String(), err
	}
	return md.String(), nil
}

// search checks the capacity flags and the goals into a search, before
// anything starts.
func (c *capacityFlags) search(fs *pflag.FlagSet, sf *parsedStudyFlags) (*study.Search, error) {
	if len(c.slo) == 0 {
		return nil, usage(fmt.Errorf("no goal given: add --slo 'cycle.p99<=50ms' (and more --slo, e.g. 'errors<=0.1%%')"))
	}
	s := &study.Search{Key: c.by, Precision: c.precision / 100, MaxSteps: c.maxSteps, MinReps: sf.repeat, MaxReps: c.maxRepeat}
	for _, t := range c.slo {
		g, err := study.ParseSLO(t)
		if err != nil {
			return nil, usage(err)
		}
		s.Goals = append(s.Goals, g)
	}
	switch c.by {
	case "rate":
		s.From, s.Max = 10, 100000
	case "clients":
		s.From, s.Max, s.Integer = 1, 1024, true
	default:
		return nil, usage(fmt.Errorf("unknown --by %q: choose rate (open loop) or clients (closed loop)", c.by))
	}
	if fs.Changed("from") {
		s.From = c.from
	}
	if fs.Changed("max") {
		s.Max = c.max
	}
	bad := func(v float64) bool { return !(v > 0) || math.IsInf(v, 0) || s.Integer && v != math.Trunc(v) }
	if bad(s.From) || bad(s.Max) || s.Max < s.From {
		what := "a positive number"
		if s.Integer {
			what = "a whole number from 1"
		}
		return nil, usage(fmt.Errorf("--from %g --max %g: give each %s, --max at least --from", s.From, s.Max, what))
	}
	if !(c.precision > 0 && c.precision < 100) {
		return nil, usage(fmt.Errorf("--precision %g: give a %% between 0 and 100, e.g. 5", c.precision))
	}
	if c.maxSteps < 1 {
		return nil, usage(fmt.Errorf("--max-steps %d: give at least 1", c.maxSteps))
	}
	if s.MinReps < 1 {
		return nil, usage(fmt.Errorf("--repeat %d: give at least 1", s.MinReps))
	}
	if !fs.Changed("max-repeat") {
		s.MaxReps = max(s.MaxReps, s.MinReps)
	}
	if s.MaxReps < s.MinReps {
		return nil, usage(fmt.Errorf("--max-repeat %d is below --repeat %d: give at least as many", s.MaxReps, s.MinReps))
	}
	return s, nil
}
