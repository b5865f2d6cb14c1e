package suite

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// Ran is what one scenario produced, in memory.
type Ran struct {
	Args     []string          // the equivalent command line, passwords masked
	Settings map[string]string // as Scenario.Settings, before the workload's own are added
	// Results are a study's per cell (one per finished repetition) or a
	// run's one result as one cell; empty when nothing finished.
	Results [][]*result.Result
	End     End // how it ended, beside the error
}

// End is how a scenario ended.
type End int

// The ways a scenario ends.
const (
	EndOK          End = iota
	EndViolated        // its invariants were violated
	EndInterrupted     // the suite was interrupted
	EndFailed          // any other error
)

// Env is what a suite needs from its caller: it runs one scenario and
// shows progress. The suite package prints nothing itself.
type Env struct {
	// Run runs scenario e: a run writes base+".json" and base+".html", a
	// study its files into the directory base, which exists.
	Run func(ctx context.Context, e Entry, base string) (Ran, error)
	// Redact masks the passwords in a setting's value.
	Redact func(string) string
	// Status shows a progress or status line.
	Status func(string)
	// Markdown renders the report as suite.md (report.SuiteMarkdown).
	Markdown func(io.Writer, *Report)
}

// Tally counts how a suite's scenarios ended.
type Tally struct {
	Violated, Failed int
	Interrupted      bool
}

// Run runs entries in order into the existing directory out, each
// isolated, and keeps rep (filled with what ran) saved there as
// suite.json and suite.md after every scenario. The error is one writing
// them; how the scenarios ended is in the tally.
func Run(ctx context.Context, rep *Report, entries []Entry, out string, env Env) (Tally, error) {
	var t Tally
	for i, e := range entries {
		if ctx.Err() != nil {
			t.Interrupted = true
			break
		}
		env.Status(fmt.Sprintf("[%d/%d] scenario %s (%s %s, tier %s), %s elapsed", i+1, len(entries), e.Name, e.Workload, e.Kind(), cmp.Or(e.Tier, rep.Tier), time.Since(rep.Started).Round(time.Second)))
		sc, first, end, err := runScenario(ctx, e, out, env)
		if first != nil && rep.Machine.OS == "" {
			rep.Machine = first.Machine
		}
		switch {
		case err == nil:
		case end == EndViolated:
			t.Violated++
		case end == EndInterrupted || ctx.Err() != nil:
			t.Interrupted = true
			sc.Error = Interrupted
		default:
			t.Failed++
			sc.Error = env.Redact(err.Error())
			env.Status(fmt.Sprintf("scenario %s failed: %s; going on with the next", e.Name, sc.Error))
		}
		rep.Scenarios = append(rep.Scenarios, sc)
		rep.Ended = time.Now()
		if err := rep.write(out, env.Markdown); err != nil {
			return t, err
		}
		if t.Interrupted {
			break
		}
	}
	rep.Ended = time.Now()
	if err := rep.write(out, env.Markdown); err != nil {
		return t, err
	}
	env.Status(fmt.Sprintf("suite %s %s: %d scenarios in %s, written to %s (suite.md, suite.json)", rep.Name, rep.TierTitle(), len(rep.Scenarios), rep.Ended.Sub(rep.Started).Round(time.Second), out))
	return t, nil
}

// runScenario runs one scenario into dir and returns its outcome, a
// result for the machine's description, and how and why it ended.
func runScenario(ctx context.Context, e Entry, dir string, env Env) (Scenario, *result.Result, End, error) {
	sc := Scenario{Name: e.Name, Kind: e.Kind(), Workload: e.Workload, Tiers: e.Tiers, Tier: e.Tier}
	base := filepath.Join(dir, e.Name)
	if e.Kind() == KindStudy {
		if err := os.MkdirAll(base, 0o755); err != nil {
			return sc, nil, EndFailed, fmt.Errorf("scenario directory: %w", err)
		}
	}
	ran, err := env.Run(ctx, e, base)
	sc.Args, sc.Settings = ran.Args, ran.Settings
	var all []*result.Result
	for _, rs := range ran.Results {
		all = append(all, rs...)
	}
	if len(all) == 0 {
		return sc, nil, ran.End, err
	}
	if e.Kind() == KindStudy {
		sc.Study = filepath.ToSlash(filepath.Join(e.Name, "study.json"))
		sc.Summary = StudySummary(ran.Results)
	} else {
		sc.Result = e.Name + ".json"
		sc.Summary = RunSummary(all[0])
	}
	sc.Server = all[0].Server.Dialect + " " + all[0].Server.Version
	addWorkloadSettings(sc.Settings, env.Redact, all...)
	return sc, all[0], ran.End, err
}

// addWorkloadSettings adds the settings the workload reported in its
// results (names with dashes, like its flags) that the scenario's
// settings lack; one that differs between a study's runs is "varies".
func addWorkloadSettings(m map[string]string, redact func(string) string, rs ...*result.Result) {
	found := map[string]string{}
	for i, r := range rs {
		for k, v := range r.Settings {
			k = strings.ReplaceAll(k, "_", "-")
			val := redact(fmt.Sprint(v))
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

// write writes suite.json and suite.md (rendered by markdown) into dir.
func (r *Report) write(dir string, markdown func(io.Writer, *Report)) error {
	if err := r.Save(filepath.Join(dir, "suite.json")); err != nil {
		return err
	}
	var md strings.Builder
	markdown(&md, r)
	if err := os.WriteFile(filepath.Join(dir, "suite.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("writing the suite report: %w", err)
	}
	return nil
}
