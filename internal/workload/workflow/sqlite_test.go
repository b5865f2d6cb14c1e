package workflow

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	_ "github.com/txnbench/txnbench/internal/target/drivers"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestSQLiteScenarios runs each scenario on SQLite at a tiny scale: the
// workers poll (SQLite has no LISTEN/NOTIFY, and the run says so), every
// signal is applied once, and a delayed burst measures its lateness.
func TestSQLiteScenarios(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		steps int64
	}{
		{[]string{"--scenario", "signal-roundtrip"}, 1},
		{[]string{"--scenario", "immediate-burst", "--steps", "4", "--claim-batch", "3"}, 4},
		{[]string{"--scenario", "delayed-burst", "--steps", "3", "--signal-delay", "30ms", "--poll-interval", "5ms"}, 3},
		{[]string{"--scenario", "external-resume"}, 1},
	} {
		t.Run(tc.args[1], func(t *testing.T) {
			w := newWorkflow(t, append(tc.args, "--signal-workers", "3", "--poll-interval", "5ms")...)
			s := spec("sqlite:"+filepath.Join(t.TempDir(), "wf.db"), w, 3, 12)
			r := runOn(t, s, openDB(t, s))
			checkRun(t, r, 12)
			if a := r.Op(stepApply); a.Count+a.AfterWindow != 12*tc.steps {
				t.Errorf("apply %d+%d, want %d", a.Count, a.AfterWindow, 12*tc.steps)
			}
			if r.Settings["wake"] != wakePoll || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "no LISTEN/NOTIFY") }) {
				t.Errorf("wake %v, notes %q: want polling, said why", r.Settings["wake"], r.Notes)
			}
			late := r.Op(stepLateness)
			if delayed := tc.args[1] == "delayed-burst"; delayed != (late != nil) || delayed && (late.Kind != result.KindPhase || late.Count+late.AfterWindow != 36) {
				t.Errorf("lateness %+v (delayed burst: %v)", late, delayed)
			}
		})
	}
}

// TestHandlerFailures: with --handler-fail-rate signals are retried, and
// dead-lettered after --max-attempts, failing their workflow; the dead
// letters stay within the failure model's bound and the check says so.
func TestHandlerFailures(t *testing.T) {
	w := newWorkflow(t, "--handler-fail-rate", "0.6", "--max-attempts", "2", "--retry-backoff", "1ms", "--poll-interval", "2ms", "--signal-workers", "2")
	s := spec("sqlite:"+filepath.Join(t.TempDir(), "wf.db"), w, 4, 60)
	r := runOn(t, s, openDB(t, s))
	if !r.Invariants.OK {
		t.Fatalf("invariants: %+v", r.Invariants)
	}
	var failures, dead int
	if _, err := fmt.Sscanf(r.Invariants.Items[0].Detail, "failures %d, dead-lettered %d", &failures, &dead); err != nil {
		t.Fatal(err)
	}
	if dead == 0 || failures != dead || w.handlerFailures.Load() <= int64(dead) {
		t.Errorf("%d failures, %d dead-lettered, %d handler failures: want some dead letters (p = 0.36), one failed workflow each, and retries", failures, dead, w.handlerFailures.Load())
	}
	if !strings.Contains(r.Invariants.Items[4].Detail, "accepted") {
		t.Errorf("dead-letter bound not said: %q", r.Invariants.Items[4].Detail)
	}
	// The same count against a model without failures violates it.
	w.failRate = 0
	ch, err := w.Check(context.Background(), testutil.Session(t, openTarget(t, s.DB.String())))
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.FailedItems(ch); !slices.Equal(got, []string{"dead letters within the failure model"}) {
		t.Errorf("failed items %q without --handler-fail-rate", got)
	}
}

func openTarget(t *testing.T, db string) target.Target {
	t.Helper()
	tg := testutil.Open(t, db)
	return tg
}

// checkedRun runs w with 2 starters for n workflows on a new SQLite
// database, asserts what a healthy run has (checkRun), and returns the
// run's spec and database and a session on it, for what a test plants
// after the run.
func checkedRun(t *testing.T, w *Workload, n int) (job.Spec, *job.Database, target.Conn) {
	t.Helper()
	s := spec("sqlite:"+filepath.Join(t.TempDir(), "wf.db"), w, 2, n)
	db := openDB(t, s)
	checkRun(t, runOn(t, s, db), int64(n))
	return s, db, testutil.Session(t, openTarget(t, s.DB.String()))
}

// TestInvariantsCatchDamage plants, after a healthy run, a deleted
// history row, a duplicated application and a stuck workflow: each turns
// the verdict, on the items that name it.
func TestInvariantsCatchDamage(t *testing.T) {
	w := newWorkflow(t, "--poll-interval", "2ms", "--signal-workers", "2", "--steps", "2")
	_, _, c := checkedRun(t, w, 10)
	ctx := context.Background()
	exec := func(q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	first := w.base + 1
	for _, tc := range []struct {
		name         string
		damage, mend []string
		want         []string
	}{
		{"deleted history row",
			[]string{fmt.Sprintf("DELETE FROM %s WHERE instance_id = %d AND step = 1", tHistory, first)},
			[]string{fmt.Sprintf("INSERT INTO %s VALUES (%d, 1, 1, 1, 0)", tHistory, first)},
			[]string{"no signal lost", "history matches the workflows"}},
		{"duplicated application",
			[]string{fmt.Sprintf("UPDATE %s SET applied = applied + 1, version = version + 1 WHERE id = %d", tInstances, first)},
			[]string{fmt.Sprintf("UPDATE %s SET applied = applied - 1, version = version - 1 WHERE id = %d", tInstances, first)},
			[]string{"no signal applied twice", "history matches the workflows"}},
		{"signal applied and queued again",
			[]string{fmt.Sprintf("INSERT INTO %s (instance_id, step, kind, payload, due_us, attempts) VALUES (%d, 0, 'resume', '{}', 0, 0)", tSignals, first)},
			[]string{fmt.Sprintf("DELETE FROM %s WHERE instance_id = %d", tSignals, first)},
			[]string{"no signal applied twice"}},
		{"stuck workflow",
			[]string{
				fmt.Sprintf("INSERT INTO %s (id, definition, state, version, steps, applied, created_us, updated_us) VALUES (%d, 'x', 'waiting', 1, 1, 0, 0, 0)", tInstances, first+1000),
				fmt.Sprintf("INSERT INTO %s (instance_id, step, kind, payload, due_us, attempts) VALUES (%d, 0, 'resume', '{}', 0, 0)", tSignals, first+1000)},
			[]string{fmt.Sprintf("DELETE FROM %s WHERE instance_id = %d", tSignals, first+1000), fmt.Sprintf("DELETE FROM %s WHERE id = %d", tInstances, first+1000)},
			[]string{"every workflow completed"}},
		{"lease left held",
			[]string{fmt.Sprintf("INSERT INTO %s (instance_id, step, kind, payload, due_us, attempts, lease_owner, lease_until_us) VALUES (%d, 9, 'resume', '{}', 0, 1, 3, 0)", tSignals, first+500)},
			[]string{fmt.Sprintf("DELETE FROM %s WHERE instance_id = %d", tSignals, first+500)},
			[]string{"no lease left held"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range tc.damage {
				exec(q)
			}
			testutil.CheckFails(t, w, c, tc.want)
			for _, q := range tc.mend {
				exec(q)
			}
			if ch, err := w.Check(ctx, c); err != nil || !ch.OK {
				t.Fatalf("after mending: %+v, %v", ch, err)
			}
		})
	}
	// A lease an earlier run left held (it was killed) is not this run's.
	exec(fmt.Sprintf("INSERT INTO %s (instance_id, step, kind, payload, due_us, attempts, lease_owner, lease_until_us) VALUES (%d, 9, 'resume', '{}', 0, 1, 3, 0)", tSignals, first-1000))
	if ch, err := w.Check(ctx, c); err != nil || !ch.OK {
		t.Errorf("an earlier run's lease held: %+v, %v", ch, err)
	}
	exec(fmt.Sprintf("DELETE FROM %s WHERE instance_id = %d", tSignals, first-1000))
	// A commit of unknown outcome may leave a workflow no starter waits
	// for: one such commit accepts one stuck workflow.
	exec(fmt.Sprintf("INSERT INTO %s (id, definition, state, version, steps, applied, created_us, updated_us) VALUES (%d, 'x', 'started', 0, 1, 0, 0, 0)", tInstances, first+3000))
	w.unknownCommits.Store(1)
	if ch, err := w.Check(ctx, c); err != nil || !ch.OK || ch.UnknownCommits != 1 || !strings.Contains(ch.Items[0].Detail, "stuck 1") {
		t.Errorf("a stuck workflow after a commit of unknown outcome: %+v, %v", ch, err)
	}
	w.unknownCommits.Store(0)
	testutil.CheckFails(t, w, c, []string{"every workflow completed"})
	exec(fmt.Sprintf("DELETE FROM %s WHERE id = %d", tInstances, first+3000))
	// A workflow younger than --stuck-after is unfinished (an interrupted
	// run), said but not a violation.
	exec(fmt.Sprintf("INSERT INTO %s (id, definition, state, version, steps, applied, created_us, updated_us) VALUES (%d, 'x', 'waiting', 1, 1, 0, %d, 0)", tInstances, first+2000, micros(time.Now())))
	exec(fmt.Sprintf("INSERT INTO %s (instance_id, step, kind, payload, due_us, attempts) VALUES (%d, 0, 'resume', '{}', 0, 0)", tSignals, first+2000))
	if ch, err := w.Check(ctx, c); err != nil || !ch.OK || !strings.Contains(ch.Items[0].Detail, "stuck 0 (of 11 workflows started, 1 unfinished") {
		t.Errorf("a young workflow not final: %+v, %v", ch, err)
	}
}

// TestValidate: bad options are refused with a message naming the fix.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "nope"}, "choose one of delayed-burst, external-resume, immediate-burst, signal-roundtrip"},
		{[]string{"--steps", "0"}, "--steps 0"},
		{[]string{"--signal-workers", "0"}, "--signal-workers 0"},
		{[]string{"--wake", "sometimes"}, "choose notify or poll"},
		{[]string{"--handler-fail-rate", "1"}, "--handler-fail-rate 1"},
		{[]string{"--handler-fail-rate", "NaN"}, "--handler-fail-rate NaN"}, // else the check's failure model fails every run (exit 3)
		{[]string{"--lease", "0s"}, "--lease 0s"},
		{[]string{"--signal-delay", "1h"}, "--stuck-after 30s is not longer than --signal-delay 1h0m0s"},
		{[]string{"--scenario", "delayed-burst", "--stuck-after", "1s"}, "--stuck-after 1s is not longer than --signal-delay 1s"},
	} {
		w := &Workload{}
		fs := newFlagSet(w)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := w.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	// a scenario's defaults, unless given
	if w := newWorkflow(t, "--scenario", "delayed-burst"); w.steps != 10 || w.signalDelay.String() != "1s" {
		t.Errorf("delayed-burst: %d steps, delay %s", w.steps, w.signalDelay)
	}
	if w := newWorkflow(t, "--scenario", "delayed-burst", "--steps", "2", "--signal-delay", "0s"); w.steps != 2 || w.signalDelay != 0 {
		t.Errorf("delayed-burst with flags: %d steps, delay %s", w.steps, w.signalDelay)
	}
}

// TestStuckWorkflow: a workflow not completed within --stuck-after fails
// its await (class other, said why) and the check counts it stuck.
func TestStuckWorkflow(t *testing.T) {
	w := newWorkflow(t, "--stuck-after", "50ms", "--poll-interval", "5ms", "--signal-workers", "1")
	w.signalDelay = time.Hour // past validation, which refuses a delay that makes every workflow stuck
	s := spec("sqlite:"+filepath.Join(t.TempDir(), "wf.db"), w, 2, 2)
	r := runOn(t, s, openDB(t, s))
	if a := r.Op(opAwait); a.Errors["other"] != 2 || !strings.Contains(a.ErrorSamples["other"], "not completed within --stuck-after 50ms") {
		t.Errorf("await errors %v %q: want both stuck", a.Errors, a.ErrorSamples)
	}
	if !r.Invariants.Violated() || !slices.Equal(testutil.FailedItems(*r.Invariants), []string{"every workflow completed"}) ||
		!strings.Contains(r.Invariants.Items[0].Detail, "stuck 2") {
		t.Errorf("invariants %+v: want 2 stuck", r.Invariants)
	}
}

// TestFailedPublishAccepted: a publish that fails (planted: a trigger
// refuses some workflows' signals) leaves its workflow started with no
// signal and no starter waiting; once older than --stuck-after it is no
// lost data, so the check accepts one per failed publish and says so, and
// still fails a stuck workflow beyond them.
func TestFailedPublishAccepted(t *testing.T) {
	w := newWorkflow(t, "--poll-interval", "2ms", "--signal-workers", "2")
	s, db, c := checkedRun(t, w, 3)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TRIGGER planted BEFORE INSERT ON "+tSignals+" WHEN NEW.instance_id % 3 = 0 BEGIN SELECT RAISE(ABORT, 'planted publish failure'); END"); err != nil {
		t.Fatal(err)
	}
	s.Runner.Iterations = 9
	r := runOn(t, s, db)
	n := r.Op(opPublish).ErrorCount() // about a third: which ids a starter gets varies
	if n == 0 {
		t.Fatal("no publish failed")
	}
	w.stuckAfter = time.Nanosecond // the started workflows are now stuck
	ch, err := w.Check(ctx, c)
	if err != nil || !ch.OK || !strings.Contains(ch.Items[0].Detail, fmt.Sprintf("stuck %d (", n)) ||
		!strings.Contains(ch.Items[0].Detail, fmt.Sprintf("up to %d accepted: 0 commits of unknown outcome and %d failed publishes", n, n)) {
		t.Errorf("after %d failed publishes: %+v, %v", n, ch, err)
	}
	if _, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, definition, state, version, steps, applied, created_us, updated_us) VALUES (%d, 'x', 'started', 0, 1, 0, 0, 0)", tInstances, w.base+1000)); err != nil {
		t.Fatal(err)
	}
	testutil.CheckFails(t, w, c, []string{"every workflow completed"})
}

// TestEarlierRunsSignals: signals an earlier run left queued (it was
// interrupted or killed) are applied by the next run's workers, which
// completes that run's workflow: no starter of this run waits for it, and
// the run goes on (it once indexed the waiters with a negative number).
func TestEarlierRunsSignals(t *testing.T) {
	w := newWorkflow(t, "--poll-interval", "2ms", "--signal-workers", "2")
	s, db, c := checkedRun(t, w, 2)
	ctx := context.Background()
	for _, q := range []string{
		fmt.Sprintf("INSERT INTO %s (id, definition, state, version, steps, applied, created_us, updated_us) VALUES (100, 'x', 'waiting', 1, 1, 0, 0, 0)", tInstances),
		fmt.Sprintf("INSERT INTO %s (instance_id, step, kind, payload, due_us, attempts) VALUES (100, 0, 'resume', '{}', 0, 0)", tSignals),
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	checkRun(t, runOn(t, s, db), 2)
	var state string
	if err := target.QueryRow(ctx, c, "SELECT state FROM "+tInstances+" WHERE id = 100", nil, &state); err != nil || state != stateCompleted {
		t.Errorf("the earlier run's workflow: %q, %v; want completed", state, err)
	}
}
