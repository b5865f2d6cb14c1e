package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// checkCommand builds "check RUN_ID": the invariant check of a whole run
// split across shards, once all of them have finished.
func (a *app) checkCommand() *cobra.Command {
	var db string
	var partial bool
	var hc historyCheck
	runID := oneArg("check", "tpcc, or RUN_ID, the id of a split run, which each of its shards prints as it starts and saves as run_id in its result (the database lists them: SELECT DISTINCT run_id FROM txnbench_shards)")
	cmd := &cobra.Command{
		Use:   "check RUN_ID|tpcc --db URL | check --history FILE",
		Short: "Check the invariants of a run split across shards (run --shard), TPC-C's consistency conditions on any tool's tables, or a saved history",
		Long: `check tpcc --db URL runs TPC-C's twelve consistency conditions on the
TPC-C tables of any tool (go-tpc's, HammerDB's, BenchBase's, txnbench's:
the specification's table and column names), read-only, and names each
condition it could not evaluate (a table or column not there; condition
11 on data that has taken New-Orders since its load).

  txnbench check tpcc --db mysql://root:pw@127.0.0.1:3306/tpcc

check RUN_ID verifies the invariants of a split run once every shard has
finished, counting what each shard recorded in the run table
(txnbench_shards) of the database. The last shard to finish runs the same
check itself; use check after a shard failed to, or to check again.
When other runs wrote the same tables at the same time, check counts
their books too once they have all ended, or says it did not check, and
why. A shard that was killed (its heartbeat in the run table stopped)
leaves the run unfinished; --partial checks what can be: its books as far
as its last heartbeat count as a range with no top, so a loss is still
found, while invented rows cannot be, and the check says so.

  txnbench check train-events-7-1a2b3c4d --db postgres://user:pw@host/db
  txnbench check train-events-7-1a2b3c4d --db postgres://user:pw@host/db --partial

check --history FILE checks again a history that list-append or
rw-register saved (--history FILE), with no database: the anomalies it
shows, held to what --engine promises at --isolation (serializable
unless given; without --engine the level is Adya's, snapshot-isolation
among them). Exit status 3 when it shows what the level rules out, 2
when the file is not a history.

  txnbench check --history run.hist --isolation repeatable-read --engine postgresql

Exit status: 0 invariants OK (or not checked, as the invariants line
says), 3 violated, 2 an unknown run (or, for check tpcc, no TPC-C
tables), 1 shards not finished (or the database unreachable).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := hc.args(cmd, args); err != nil || hc.file != "" {
				return err
			}
			return runID(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if hc.file != "" {
				return hc.run(a)
			}
			if dc, ok := dataChecker(args[0]); ok {
				return a.checkData(cmd.Context(), args[0], dc, db)
			}
			if err := checkRunID("RUN_ID", args[0]); err != nil {
				return err
			}
			sp, err := target.ParseSpec(db)
			if errors.Is(err, target.ErrMalformedURL) {
				return usage(fmt.Errorf("--db: %w", err))
			}
			if err != nil || !sp.Remote() || !engine.Of(sp).Caps().RunTable {
				return usage(errors.New("--db: give the postgres:// URL of the database the shards ran against"))
			}
			ctx := cmd.Context()
			d, err := job.Open(ctx, job.Spec{DB: sp}, 1)
			if err != nil {
				return err
			}
			defer d.Close()
			id := args[0]
			rec, err := job.ReadRunRecord(ctx, d, id)
			if err != nil {
				return err
			}
			s, err := recordedSpec(rec)
			if err != nil {
				return fmt.Errorf("run %s: %w", id, err)
			}
			s.DB, s.Log = sp, a.status
			ch, err := job.CheckRun(ctx, s, d, id, partial)
			if err != nil {
				return err
			}
			report.Invariants(a.stdout, &result.Result{Invariants: ch})
			if ch.Violated() {
				return exitError{code: exitcode.Invariants, msg: "invariants violated in run " + id + ": data was lost or corrupted (see the check above)"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "the postgres:// URL of the database the shards ran against (check tpcc: the URL or sqlite:PATH of the database with the TPC-C tables)")
	cmd.Flags().BoolVar(&partial, "partial", false, "check a run with a killed shard: its work after its last heartbeat counts as unknown")
	hc.flags(cmd)
	return cmd
}

// recordedSpec rebuilds the workload and its settings from a split run's
// recorded command line ("txnbench run WORKLOAD FLAGS...").
func recordedSpec(rec job.RunRecord) (job.Spec, error) {
	def, err := workload.Lookup(rec.Workload)
	if err != nil {
		return job.Spec{}, err
	}
	i := slices.Index(rec.Args, def.Name)
	if i < 0 {
		return job.Spec{}, fmt.Errorf("its recorded command line %q does not name %s", strings.Join(rec.Args, " "), def.Name)
	}
	fs := pflag.NewFlagSet("run "+def.Name, pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	rs := newRunSpec(def, fs, true)
	newShardFlags(fs) // the command line has them
	if err := fs.Parse(rec.Args[i+1:]); err != nil {
		return job.Spec{}, fmt.Errorf("reading its recorded command line: %w", err)
	}
	if err := workload.Validate(rs.w); err != nil {
		return job.Spec{}, fmt.Errorf("reading its recorded command line: %w", err)
	}
	return job.Spec{Name: def.Name, Workload: rs.w, Runner: rs.f.cfg}, nil
}

// dataChecker is the workload named name when its invariants can be
// checked on tables another tool loaded ("check tpcc --db URL").
func dataChecker(name string) (workload.DataChecker, bool) {
	def, err := workload.Lookup(name)
	if err != nil {
		return nil, false
	}
	dc, ok := def.New().(workload.DataChecker)
	return dc, ok
}

// checkData runs "check WORKLOAD --db URL": the workload's invariants on
// the tables at db, whoever loaded them, read-only. Exit status 0 when
// every invariant it could evaluate holds, 3 when one is broken, 2 when db
// holds none of the tables.
func (a *app) checkData(ctx context.Context, name string, dc workload.DataChecker, db string) error {
	sp, err := target.ParseSpec(db)
	if errors.Is(err, target.ErrMalformedURL) {
		return usage(fmt.Errorf("--db: %w", err))
	}
	switch {
	case err != nil || sp.Temporary():
		return usage(fmt.Errorf("--db: give the database that holds the %s tables (a postgres:// or mysql:// URL, or sqlite:PATH): a throwaway one starts empty", name))
	case sp.File() != "":
		if _, err := os.Stat(sp.File()); err != nil {
			return usage(fmt.Errorf("--db sqlite:%s: no such file: give the SQLite file that holds the %s tables", sp.File(), name))
		}
	}
	d, err := job.Open(ctx, job.Spec{DB: sp}, 1)
	if err != nil {
		return err
	}
	defer d.Close()
	c, err := d.Connect(ctx)
	if err != nil {
		return target.ConnectError(d.URL, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	a.status(fmt.Sprintf("checking the %s tables of %s, read-only", name, d.URL))
	ch, err := dc.CheckData(ctx, c, d.Dialect().Caps)
	if errors.Is(err, workload.ErrNoTables) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	report.Invariants(a.stdout, &result.Result{Invariants: &ch})
	if ch.Violated() {
		return exitError{code: exitcode.Invariants, msg: fmt.Sprintf("invariants violated in the %s tables of %s (see the check above)", name, d.URL)}
	}
	return nil
}
