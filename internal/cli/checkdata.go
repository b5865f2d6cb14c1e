package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

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
