package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/txnbench/txnbench/internal/diff"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/report"
)

func (a *app) diffCommand() *cobra.Command {
	var (
		threshold float64
		allow     bool
		markdown  bool
		jsonOut   string
	)
	cmd := &cobra.Command{
		Use:   "diff BASE NEW [--threshold PCT] [--allow-different] [--markdown] [--json FILE]",
		Short: "Compare two results, studies or suites metric by metric and exit 4 on a regression",
		Long: `diff compares NEW against BASE: two result JSONs, two studies (study.json or
its directory) or two suites (suite.json or its directory), scenario by
scenario (study cells by label) and metric by metric: throughput, latency
mean/p50/p95/p99 and error rate per op, the invariant check, database
counters per transaction and server time per op when both have telemetry.
A metric regresses when it moved the wrong way by more than its threshold
(defaults per metric family, set above the run-to-run spread measured by
bench/spread.sh) and by more than a small absolute floor, and, for rates,
latencies and counters, significantly: its 95% interval (Welch's t on the
logs of the repetitions, or of a single run's progress intervals with a
drift for its machine's busy share) excludes no change. A change beyond its
threshold that is not significant is "~" (noise), not a regression. Runs whose fixed settings (workload and its settings,
clients, duration, rate, connector, database kind, server and txnbench
versions) differ are refused unless --allow-different is given.

Exit status: 0 no regression, 4 a regression, 2 bad input.

  txnbench suite run examples/suite.toml --tier smoke --out base
  txnbench suite run examples/suite.toml --tier smoke --out new
  txnbench diff base new || exit
  txnbench diff base new --markdown >> "$GITHUB_STEP_SUMMARY"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usage(fmt.Errorf("diff takes two arguments, BASE and NEW (result JSONs, studies or suites), got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opt := diff.Options{Thresholds: diff.DefaultThresholds, AllowDifferent: allow}
			if cmd.Flags().Changed("threshold") {
				if err := checkFinite("--threshold", threshold); err != nil {
					return err
				}
				if threshold <= 0 {
					return usage(fmt.Errorf("--threshold %g: give a percentage above 0, e.g. --threshold 10", threshold))
				}
				opt.Thresholds, opt.Fixed = diff.Uniform(threshold), true
			}
			if jsonOut != "" {
				if err := checkOutFile("--json", jsonOut); err != nil {
					return err
				}
			}
			base, err := diff.Load(args[0])
			if err != nil {
				return usage(fmt.Errorf("BASE: %w", err))
			}
			nw, err := diff.Load(args[1])
			if err != nil {
				return usage(fmt.Errorf("NEW: %w", err))
			}
			if err := checkNotInputs(append(base.Files, nw.Files...), outFile{"--json", jsonOut}); err != nil {
				return err
			}
			rep, err := diff.Compare(base, nw, opt)
			var de *diff.DifferentError
			if errors.As(err, &de) {
				return usage(err)
			}
			if err != nil {
				return usage(err)
			}
			if len(rep.Different) > 0 {
				a.status("warning: fixed settings differ, compared anyway: " + strings.Join(rep.Different, "; "))
			}
			if markdown {
				report.DiffMarkdown(a.stdout, rep)
			} else {
				report.DiffText(a.stdout, rep)
			}
			if jsonOut != "" {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return fmt.Errorf("encoding the decisions: %w", err)
				}
				if err := os.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("--json %s: %w", jsonOut, err)
				}
			}
			if rep.Regressions > 0 {
				return exitError{code: exitcode.Regression}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	d := diff.DefaultThresholds
	fs.Float64Var(&threshold, "threshold", 0, fmt.Sprintf("relative change in %% beyond which any metric counts as moved (if significant too), instead of the per-family defaults (throughput %g, mean/p50 %g, p95 %g, p99 %g, errors %g, database %g)",
		d.Throughput, d.Mean, d.P95, d.P99, d.Errors, d.Database))
	fs.BoolVar(&allow, "allow-different", false, "compare even when fixed settings (workload, its settings, clients, duration, connector, database kind, versions) differ; the differences are printed as a warning")
	fs.BoolVar(&markdown, "markdown", false, "print the comparison as Markdown (a pull request's comment, a CI job's summary) instead of text")
	fs.StringVar(&jsonOut, "json", "", "also write the decisions as JSON to this file")
	return cmd
}
