package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload/anomalies"
)

// historyCheck is "check --history FILE": a saved history (list-append's
// or rw-register's --history) checked again, held to what an engine
// promises at a level (--isolation, --engine), with no database.
type historyCheck struct {
	file, isolation, engine string
}

func (h *historyCheck) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&h.file, "history", "", "check the history a run saved (list-append or rw-register --history FILE) instead of a split run")
	cmd.Flags().StringVar(&h.isolation, "isolation", "serializable", "with --history: the level the history ran at")
	cmd.Flags().StringVar(&h.engine, "engine", "", "with --history: the engine it ran on (postgresql, mariadb, sqlite), for what its level promises; without it the level is taken as Adya's")
}

// args refuses a RUN_ID beside --history, or --isolation and --engine
// without it.
func (h *historyCheck) args(cmd *cobra.Command, args []string) error {
	if h.file == "" && cmd.Flags().Changed("history") {
		return usage(errors.New("--history is empty: give the history file to check (a run's --history FILE)"))
	}
	if h.file == "" {
		for _, f := range []string{"isolation", "engine"} {
			if cmd.Flags().Changed(f) {
				return usage(fmt.Errorf("--%s is for check --history FILE: give the history to check, or leave --%s out", f, f))
			}
		}
		return nil
	}
	if len(args) > 0 {
		return usage(fmt.Errorf("check --history FILE takes no RUN_ID (got %q): check one or the other", args[0]))
	}
	if cmd.Flags().Changed("db") || cmd.Flags().Changed("partial") {
		return usage(errors.New("check --history FILE needs no database: leave --db and --partial out"))
	}
	return nil
}

// run loads and checks the history: exit 3 when it shows what the level
// rules out, 2 when the file is not a history or the level unknown.
func (h *historyCheck) run(a *app) error {
	level := h.isolation
	if l, err := target.ParseIsolation(level); err == nil {
		level = string(l)
	}
	if _, err := history.Promise(h.engine, level); err != nil {
		return usage(fmt.Errorf("--isolation or --engine: %w", err))
	}
	hist, err := history.Load(h.file)
	if err != nil {
		return usage(err)
	}
	v, err := anomalies.Verdict(hist, h.engine, level)
	if err != nil {
		return usage(err)
	}
	ch := anomalies.Judge(v)
	report.Invariants(a.stdout, &result.Result{Invariants: &ch})
	if ch.Violated() {
		return exitError{code: exitcode.Invariants, msg: fmt.Sprintf("%s: the history shows what %s rules out (see the anomalies above)", h.file, v.Promise)}
	}
	return nil
}
