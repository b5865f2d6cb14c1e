package workflow

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// workerSessions counts the sessions on c's database whose last statement
// was a worker's claim or LISTEN.
func workerSessions(t *testing.T, c target.Conn) int64 {
	t.Helper()
	var n int64
	q := "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND (query LIKE '%op=claim%' OR query LIKE 'LISTEN%')"
	if err := target.QueryRow(context.Background(), c, q, nil, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPostgresScenarios runs each scenario on a real PostgreSQL at a tiny
// scale, waking the workers with NOTIFY (the default there) and, for the
// round trip, by polling; the runs share the tables, each checking its
// own workflows. When a run ends its workers' sessions are gone.
func TestPostgresScenarios(t *testing.T) {
	db := testutil.SharedPostgres(t)
	admin := testutil.Session(t, openTarget(t, db))
	for _, tc := range []struct {
		name  string
		args  []string
		steps int64
		wake  string
	}{
		{"signal-roundtrip notify", []string{"--scenario", "signal-roundtrip"}, 1, wakeNotify},
		{"signal-roundtrip poll", []string{"--scenario", "signal-roundtrip", "--wake", "poll", "--poll-interval", "5ms"}, 1, wakePoll},
		{"poll-interval with notify", []string{"--scenario", "signal-roundtrip", "--poll-interval", "5ms"}, 1, wakeNotify},
		{"immediate-burst", []string{"--scenario", "immediate-burst", "--steps", "4", "--claim-batch", "2"}, 4, wakeNotify},
		{"delayed-burst", []string{"--scenario", "delayed-burst", "--steps", "3", "--signal-delay", "50ms"}, 3, wakeNotify},
		{"external-resume", []string{"--scenario", "external-resume"}, 1, wakeNotify},
		{"handler failures", []string{"--steps", "2", "--handler-fail-rate", "0.5", "--max-attempts", "2", "--retry-backoff", "1ms"}, 2, wakeNotify},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkflow(t, append(tc.args, "--signal-workers", "3")...)
			s := spec(db, w, 4, 24)
			r := runOn(t, s, openDB(t, s))
			checkRun(t, r, 24)
			if tc.name == "handler failures" {
				// 48 signals, each dead-lettered with p = 0.25: none is a
				// one in a million
				if w.handlerFailures.Load() == 0 || strings.Contains(r.Invariants.Items[0].Detail, "dead-lettered 0,") {
					t.Errorf("%d handler failures, %s: want retries and dead letters", w.handlerFailures.Load(), r.Invariants.Items[0].Detail)
				}
			} else if a := r.Op(stepApply); a.Count+a.AfterWindow < 24*tc.steps {
				t.Errorf("apply %d+%d, want at least %d", a.Count, a.AfterWindow, 24*tc.steps) // version conflicts retry
			}
			if tc.name == "poll-interval with notify" { // a study varying it would compare identical cells
				if !slices.Equal(r.Notes, []string{"--poll-interval 5ms has no effect: the signal workers wait for NOTIFY (--wake notify); give --wake poll to compare polling"}) {
					t.Errorf("notes %q: want the poll interval's said to have no effect", r.Notes)
				}
			} else if r.Settings["wake"] != tc.wake || len(r.Notes) != 0 {
				t.Errorf("wake %v, notes %q; want %s without notes", r.Settings["wake"], r.Notes, tc.wake)
			}
			if tc.name == "delayed-burst" {
				if l := r.Op(stepLateness); l == nil || l.Count+l.AfterWindow != 72 {
					t.Errorf("lateness %+v", l)
				}
				// the signals waited for their due time
				if c := r.Op(stepCompletion); c.P50 < 25 {
					t.Errorf("signal to completion p50 %.1f ms, before the 50ms delay", c.P50)
				}
			}
			if !testutil.Poll(10*time.Second, 20*time.Millisecond, func() bool { return workerSessions(t, admin) == 0 }) {
				t.Errorf("%d worker sessions left after the run", workerSessions(t, admin))
			}
		})
	}
}

// TestWorkerKilledMidClaim: a worker whose session dies holding claimed
// signals loses nothing: a session claims signals as worker 99 and is
// terminated by the server (pg_terminate_backend) before it applies them;
// when the lease expires the run's workers take them over. The run's own
// worker sessions are terminated too (after a claim): they reconnect.
// Every workflow completes, each signal applied once.
func TestWorkerKilledMidClaim(t *testing.T) {
	cl := testutil.Postgres(t)
	ctx := context.Background()
	admin := testutil.Session(t, openTarget(t, cl.URL()))
	dying := testutil.Session(t, openTarget(t, cl.URL()))
	w := newWorkflow(t, "--signal-workers", "3", "--claim-batch", "4", "--lease", "300ms", "--steps", "3", "--wake", "poll", "--poll-interval", "5ms")
	s := spec(cl.URL(), w, 4, 40)
	db := openDB(t, s)
	var stolen, killed int64
	done := make(chan struct{})
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnStart: func() {
		go func() {
			defer close(done)
			// claim as a worker that then dies
			testutil.Poll(10*time.Second, time.Millisecond, func() bool {
				rows, err := dying.Query(ctx, w.sql.claim, 99, micros(time.Now().Add(w.lease)), micros(time.Now()), 2)
				if err != nil {
					return true
				}
				for rows.Next() {
					stolen++
				}
				rows.Close()
				return stolen > 0
			})
			target.QueryRow(ctx, admin, "SELECT pg_terminate_backend($1)", []any{int64(target.BackendPID(dying))}, new(bool))
			// and the run's own workers, after a claim
			testutil.Poll(10*time.Second, 20*time.Millisecond, func() bool {
				var n int64
				target.QueryRow(ctx, admin, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%op=claim%'", nil, &n)
				killed += n
				return killed >= 3
			})
		}()
	}}}
	r := runOn(t, s, db)
	<-done
	if stolen == 0 || killed == 0 {
		t.Fatalf("claimed %d signals as a dying worker, killed %d worker sessions: want some of each", stolen, killed)
	}
	checkRun(t, r, 40)
	var takenOver int64
	if err := target.QueryRow(ctx, admin, "SELECT count(*) FROM "+tHistory+" WHERE attempts > 1 AND worker <> 99", nil, &takenOver); err != nil {
		t.Fatal(err)
	}
	if takenOver < stolen {
		t.Errorf("%d signals applied on a later attempt, want the %d the dead worker held", takenOver, stolen)
	}
	t.Logf("dead worker held %d signals; killed %d worker sessions; claim errors %v, apply errors %v", stolen, killed, r.Op(stepClaim).Errors, r.Op(stepApply).Errors)
}

// TestThroughPgBouncer: through a throwaway PgBouncer in transaction mode
// the workers' LISTEN session goes straight to the server, so NOTIFY
// still wakes them; the run is whole.
func TestThroughPgBouncer(t *testing.T) {
	testutil.NeedPgBouncer(t)
	w := newWorkflow(t, "--signal-workers", "3")
	s := spec(target.TempPostgresSpec, w, 4, 16)
	s.DB.Via = target.Via{Kind: target.ViaPgBouncer, PgBouncer: target.PgBouncer{Mode: "transaction", Size: 4}}
	r := runOn(t, s, openDB(t, s))
	checkRun(t, r, 16)
	if r.Settings["wake"] != wakeNotify || len(r.Notes) != 0 || !strings.Contains(r.Config.DB, "via PgBouncer") {
		t.Errorf("wake %v, notes %q, db %s: want notify through PgBouncer", r.Settings["wake"], r.Notes, r.Config.DB)
	}
	if w.notified.Load() == 0 {
		t.Error("no NOTIFY reached the workers' listener")
	}
}

// TestThroughPoolerURL: through a pooler given by URL, with no server URL
// to LISTEN on, the workers poll and the run says why.
func TestThroughPoolerURL(t *testing.T) {
	b := testutil.PgBouncer(t, testutil.Postgres(t), 4)
	w := newWorkflow(t, "--signal-workers", "3", "--poll-interval", "5ms")
	s := spec("", w, 4, 16)
	var err error
	if s.DB.Via, err = target.ParseVia(b.URL("postgres")); err != nil {
		t.Fatal(err)
	}
	r := runOn(t, s, openDB(t, s))
	checkRun(t, r, 16)
	if r.Settings["wake"] != wakePoll || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "signal workers poll every 5ms: LISTEN needs a session of its own and the pooler URL given to --via is not the server (give the server's URL with --db too)") {
		t.Errorf("wake %v, notes %q: want polling, said why", r.Settings["wake"], r.Notes)
	}
}

// TestReleaseAfterSessionLost: a worker whose session was terminated while
// it idled gives back, when the run ends, the leases it holds (one
// planted: a claim of worker 1 whose session then died) on a new session:
// no lease is left held.
func TestReleaseAfterSessionLost(t *testing.T) {
	cl := testutil.Postgres(t)
	ctx := context.Background()
	admin := testutil.Session(t, openTarget(t, cl.URL()))
	w := newWorkflow(t, "--signal-workers", "1")
	s := spec(cl.URL(), w, 2, 10)
	s.Runner.Observers = []runner.Observer{runner.Funcs{
		OnStart: func() {
			q := "INSERT INTO " + tSignals + " (instance_id, step, kind, payload, due_us, attempts, lease_owner, lease_until_us) VALUES ($1, 0, 'resume', '{}', 0, 1, 1, $2)"
			if _, err := admin.Exec(ctx, q, w.base+1_000_000, micros(time.Now().Add(time.Hour))); err != nil { // of this run: the check counts it
				t.Error(err)
			}
		},
		OnStop: func() { // the idle worker's session dies unnoticed (and the rest: the clients are done)
			var n int64
			err := target.QueryRow(ctx, admin, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND datname = current_database()", nil, &n)
			if n == 0 {
				t.Errorf("no session to terminate: %v", err)
			}
		},
	}}
	r := runOn(t, s, openDB(t, s))
	if r.Invariants == nil || !r.Invariants.OK {
		t.Fatalf("invariants: %+v", r.Invariants)
	}
}

// TestWorkerSessionLostMidApply: a worker whose session is terminated in
// the middle of applying gives back what it had claimed as soon as it has
// reconnected, so the signals do not wait for --lease (an hour here) and
// every workflow completes within --stuck-after, each signal applied once.
func TestWorkerSessionLostMidApply(t *testing.T) {
	w := newWorkflow(t, "--signal-workers", "3", "--claim-batch", "2", "--lease", "1h", "--stuck-after", "5s", "--steps", "3")
	r, _, killed := runKillingMidOp(t, w, "apply", 60)
	checkRun(t, r, 60)
	t.Logf("killed %d worker sessions mid apply; apply errors %v", killed, r.Op(stepApply).Errors)
}

// TestPublishSessionLost: starters whose session is terminated in the
// middle of a publish leave their workflows started; each such publish is
// accepted by the check once those are older than --stuck-after (the
// driver calls the lost session's outcome unknown, but nothing was
// committed yet: it is a failed publish).
func TestPublishSessionLost(t *testing.T) {
	ctx := context.Background()
	w := newWorkflow(t, "--signal-workers", "2")
	r, admin, _ := runKillingMidOp(t, w, "signal_publish", 200)
	if p := r.Op(opPublish); p.ErrorCount() == 0 {
		t.Fatalf("publish errors %v, want some", p.Errors)
	}
	w.stuckAfter = time.Nanosecond // the started workflows are now stuck
	if ch, err := w.Check(ctx, admin); err != nil || !ch.OK {
		t.Errorf("after publishes cut short: %+v, %v", ch, err)
	}
}

// TestLeaseTakenOverSpendsAttempts: with a lease shorter than an
// application, workers take signals over from each other, which spends
// attempts without the handler's verdict and dead-letters more signals
// than --handler-fail-rate alone would; the check accepts those spent
// attempts, says how many, and still holds.
func TestLeaseTakenOverSpendsAttempts(t *testing.T) {
	w := newWorkflow(t, "--signal-workers", "6", "--lease", "1ns", "--handler-fail-rate", "0.5", "--max-attempts", "3", "--retry-backoff", "1ms")
	s := spec(testutil.SharedPostgres(t), w, 8, 400)
	r := runOn(t, s, openDB(t, s))
	d := r.Invariants.Items[4]
	if !r.Invariants.OK || !strings.Contains(d.Detail, "attempts ended without the handler's verdict") {
		t.Errorf("invariants %+v", r.Invariants)
	}
}

// runKillingMidOp runs w, 4 clients for n iterations, on a throwaway
// cluster, terminating the session of clients in the middle of op
// (killMidOp), and fails the test unless it terminated some. It returns
// the result, the admin session and how many it terminated.
func runKillingMidOp(t *testing.T, w *Workload, op string, n int) (*result.Result, target.Conn, int64) {
	t.Helper()
	cl := testutil.Postgres(t)
	admin := testutil.Session(t, openTarget(t, cl.URL()))
	s := spec(cl.URL(), w, 4, n)
	var killed int64
	obs, done := killMidOp(context.Background(), admin, op, &killed)
	s.Runner.Observers = []runner.Observer{obs}
	r := runOn(t, s, openDB(t, s))
	<-done
	if killed == 0 {
		t.Fatalf("no session terminated mid %s", op)
	}
	return r, admin, killed
}

// killMidOp terminates, from the window's start, the sessions idle in a
// transaction of op (its tag) until two are gone or 10 s pass, counting
// them in killed; done closes then.
func killMidOp(ctx context.Context, admin target.Conn, op string, killed *int64) (runner.Observer, <-chan struct{}) {
	done := make(chan struct{})
	return runner.Funcs{OnStart: func() {
		go func() {
			defer close(done)
			testutil.Poll(10*time.Second, time.Millisecond, func() bool {
				var n int64
				target.QueryRow(ctx, admin, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'idle in transaction' AND query LIKE '%op="+op+"%'", nil, &n)
				*killed += n
				return *killed >= 2
			})
		}()
	}}, done
}

// TestClaimInFlightWhenRunEnds: a claim the server is still running when
// the run ends is not cut short, so the worker gives its lease back. A
// trigger holds each claim on an advisory lock the test holds, and lets
// it commit even when the client cancels it (a claim whose cancel request
// lands during its commit commits); the test lets the lock go once the
// worker stopped, or once it did not stop within stopWait. Cut short by the
// run's end, the claim broke its session and was cancelled while the
// server went on; the worker gave back its leases on a new session and
// stopped, then the claim committed: its lease was left held.
func TestClaimInFlightWhenRunEnds(t *testing.T) {
	const key, stopWait = 7341, 2 * time.Second // stopWait: well within claimGrace
	// a database of its own is enough: advisory locks are the database's
	db := testutil.SharedPostgres(t)
	ctx := context.Background()
	tg := openTarget(t, db)
	admin := testutil.Session(t, tg)
	locker := testutil.Session(t, tg)
	w := newWorkflow(t, "--signal-workers", "1", "--wake", "poll", "--poll-interval", "5ms")
	if _, err := w.Init(ctx, admin, tg.Dialect(), workload.InitOptions{Fresh: true, Clients: 1, Progress: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx, admin); err != nil {
		t.Fatal(err)
	}
	lock := "PERFORM pg_advisory_xact_lock_shared(" + strconv.Itoa(key) + ");"
	for _, q := range []string{
		"CREATE SEQUENCE claims_cancelled",
		"CREATE FUNCTION hold_claim() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.lease_owner IS NOT NULL THEN BEGIN " + lock +
			" EXCEPTION WHEN query_canceled THEN PERFORM nextval('claims_cancelled'); " + lock + " END; END IF; RETURN NEW; END $$",
		"CREATE TRIGGER hold_claim BEFORE UPDATE ON " + tSignals + " FOR EACH ROW EXECUTE FUNCTION hold_claim()",
		"SELECT pg_advisory_lock(" + strconv.Itoa(key) + ")",
	} {
		if _, err := locker.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	q := "INSERT INTO " + tSignals + " (instance_id, step, kind, payload, due_us, attempts) VALUES ($1, 0, 'resume', '{}', 0, 0)"
	if _, err := admin.Exec(ctx, q, w.base+1); err != nil {
		t.Fatal(err)
	}
	runCtx, endRun := context.WithCancel(ctx)
	defer endRun()
	stop, err := w.Background(runCtx, workload.BackgroundEnv{Connect: tg.Connect})
	if err != nil {
		t.Fatal(err)
	}
	held := func() int64 { // claims waiting for the test's lock
		var n int64
		q := "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%op=claim%' AND wait_event_type = 'Lock' AND wait_event = 'advisory'"
		if err := target.QueryRow(ctx, admin, q, nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if !testutil.Poll(30*time.Second, 10*time.Millisecond, func() bool { return held() == 1 }) {
		t.Fatal("no claim waiting for the test's lock")
	}
	endRun()
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	testutil.Poll(stopWait, 10*time.Millisecond, func() bool {
		select {
		case <-stopped:
			return true
		default:
			return false
		}
	})
	if _, err := locker.Exec(ctx, "SELECT pg_advisory_unlock("+strconv.Itoa(key)+")"); err != nil {
		t.Fatal(err)
	}
	<-stopped
	if !testutil.Poll(30*time.Second, 10*time.Millisecond, func() bool { return held() == 0 }) {
		t.Fatal("the claim still waits after the lock was let go")
	}
	var attempts, cancelled int64
	if err := target.QueryRow(ctx, admin, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM claims_cancelled", nil, &cancelled); err != nil {
		t.Fatal(err)
	}
	if err := target.QueryRow(ctx, admin, "SELECT attempts FROM "+tSignals+" WHERE instance_id = $1", []any{w.base + 1}, &attempts); err != nil || attempts != 1 {
		t.Fatalf("the signal's attempts %d (%v, the claim cancelled %d times): want the claim committed once", attempts, err, cancelled)
	}
	ch, err := w.Check(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range ch.Items {
		if it.Name == "no lease left held" && !it.OK {
			t.Errorf("%s (the claim cancelled %d times): %s", it.Name, cancelled, it.Detail)
		}
	}
}
