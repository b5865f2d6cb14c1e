package job

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestSlowOpsNameLockWait plants a slow op on a real PostgreSQL: as the
// window opens, another session takes an ACCESS EXCLUSIVE lock on the
// status table and holds it for 1.5 s, so the ops that touch it block.
// The run's slowest op must name its session and a Lock wait of about that
// long, and the table's notes must show it.
func TestSlowOpsNameLockWait(t *testing.T) {
	testutil.NeedPostgres(t)
	const hold = 1500 * time.Millisecond
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 2, Duration: 3 * time.Second, Progress: 500 * time.Millisecond})
	s.Telemetry.Sample = 50 * time.Millisecond
	ctx := context.Background()
	db := sequentialTempPostgres(t, s)
	locker := testutil.Session(t, db)
	locked := make(chan error, 1)
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnStart: func() {
		go func() {
			err := locker.Begin(ctx)
			if err == nil {
				_, err = locker.Exec(ctx, "LOCK TABLE events_jsonb_status IN ACCESS EXCLUSIVE MODE")
			}
			if err == nil {
				_, err = locker.Exec(ctx, "SELECT pg_sleep($1)", hold.Seconds())
			}
			if err == nil {
				err = locker.Commit(ctx)
			}
			locked <- err
		}()
	}}}
	r := runJob(t, s, db)
	if err := <-locked; err != nil {
		t.Fatalf("holding the lock: %v", err)
	}
	var slowest *result.SlowOp
	for i, o := range r.SlowOps {
		if o.Op != result.CycleOp && (slowest == nil || o.LatencyMS > slowest.LatencyMS) {
			slowest = &r.SlowOps[i]
		}
	}
	if slowest == nil {
		t.Fatalf("no slow ops: %+v", r.SlowOps)
	}
	if slowest.BackendPID == 0 || slowest.LatencyMS < 1000 || len(slowest.Waits) == 0 {
		t.Fatalf("slowest op %+v: want a backend, at least 1 s and its waits", *slowest)
	}
	t.Logf("slowest: %+v", *slowest)
	w := slowest.Waits[0]
	if !strings.HasPrefix(w.Event, "Lock:") || w.MS < 700 || w.MS > 2500 {
		t.Errorf("slowest op waited most on %s for %.0f ms, want a Lock wait of about %s: %+v", w.Event, w.MS, hold, *slowest)
	}
	var b bytes.Buffer
	report.Summary(&b, r)
	if want := slowest.Op + ": "; !strings.Contains(b.String(), "waiting on Lock:") || !strings.Contains(b.String(), want) {
		t.Errorf("the table's notes do not show the lock wait:\n%s", b.String())
	}
}

// TestSlowOpsSQLite: on SQLite the slow ops have only their times. The
// runs here are fixed work (--iterations), so that a loaded machine
// cannot leave a short window without an op.
func TestSlowOpsSQLite(t *testing.T) {
	r := run(t, spec(t, "", runner.Config{Clients: 2, Iterations: 20}))
	if len(r.SlowOps) == 0 {
		t.Fatal("no slow ops")
	}
	for _, o := range r.SlowOps {
		if o.BackendPID != 0 || o.Backend != "" || o.Waits != nil || o.Note != "" || o.LatencyMS <= 0 {
			t.Errorf("SQLite slow op %+v", o)
		}
	}
}

// TestSlowOpsPooled: through PgBouncer in transaction mode the client's
// server session is unknown, and says so.
func TestSlowOpsPooled(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 2, Iterations: 20})
	s.DB.Via.Kind = target.ViaPgBouncer
	r := runJob(t, s, sequentialTempPostgres(t, s))
	if len(r.SlowOps) == 0 {
		t.Fatal("no slow ops")
	}
	for _, o := range r.SlowOps {
		if o.BackendPID != 0 || o.Backend != "unknown backend (pooled)" || o.Waits != nil {
			t.Errorf("pooled slow op %+v", o)
		}
	}
}
