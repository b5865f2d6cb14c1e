package workflow

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"

	_ "github.com/txnbench/txnbench/internal/engine/engines" // job starts temp-postgres through its engine
)

// newWorkflow makes a validated workflow workload from flags.
func newWorkflow(t *testing.T, args ...string) *Workload {
	t.Helper()
	w := &Workload{}
	fs := newFlagSet(w)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// spec is a run of w on db by clients starters for iterations workflows.
func spec(db string, w *Workload, clients, iterations int) job.Spec {
	sp, err := target.ParseSpec(db)
	if err != nil {
		panic(err) // the tests give valid specs
	}
	return job.Spec{DB: sp, Name: "workflow", Workload: w, Version: "test", Args: []string{"txnbench", "run", "workflow"},
		Runner:    runner.Config{Clients: clients, Iterations: int64(iterations), MaxTries: 10, Progress: 200 * time.Millisecond, Seed: 42},
		Telemetry: job.Telemetry{Off: true}}
}

// openDB opens the database of s, closed when the test ends.
func openDB(t *testing.T, s job.Spec) *job.Database {
	t.Helper()
	db, err := job.Open(context.Background(), s, s.Runner.Clients+s.Workload.(*Workload).workers+5)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// runOn runs s on db, failing the test on Run's error.
func runOn(t *testing.T, s job.Spec, db *job.Database) *result.Result {
	t.Helper()
	r, err := job.Run(context.Background(), s, db)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkRun asserts what every healthy workflow run has: the invariants
// hold, each workflow started, published and awaited once without error,
// every signal applied once (a workflow dead-lettered by
// --handler-fail-rate applies fewer), and the phases recorded for every
// completed workflow.
func checkRun(t *testing.T, r *result.Result, workflows int64) {
	t.Helper()
	if r.Invariants == nil || !r.Invariants.OK {
		t.Fatalf("invariants: %+v", r.Invariants)
	}
	if d := r.Invariants.Items[0].Detail; !strings.HasPrefix(d, "failures ") || !strings.Contains(d, "stuck 0") {
		t.Errorf("first check item %q: want the seed's counters", d)
	}
	for _, name := range []string{opStart, opPublish, opAwait} {
		o := r.Op(name)
		if o == nil || o.Count != workflows || o.ErrorCount() != 0 || o.Kind != result.KindTxn {
			t.Errorf("op %s: %+v, want %d without errors", name, o, workflows)
		}
	}
	for _, name := range []string{stepClaim, stepApply} {
		if o := r.Op(name); o == nil || o.Count+o.AfterWindow == 0 || o.Kind != result.KindTxn {
			t.Errorf("worker op %s: %+v", name, o)
		}
	}
	for _, name := range []string{stepCompletion, stepWorkflow} {
		if o := r.Op(name); o == nil || o.Kind != result.KindPhase || o.Count+o.AfterWindow == 0 || o.Count+o.AfterWindow > workflows {
			t.Errorf("phase %s: %+v, want up to %d", name, o, workflows)
		}
	}
	if c := r.Op(result.CycleOp); c.Count != workflows {
		t.Errorf("%d cycles, want %d", c.Count, workflows)
	}
}

// newFlagSet registers w's flags on a new flag set.
func newFlagSet(w *Workload) *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	w.Flags(fs)
	return fs
}
