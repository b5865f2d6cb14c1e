package job

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestCheckGoesDirectWhenThePoolerIsGone kills the run's own PgBouncer on
// purpose (as a fault with no restart does): supervision leaves it down, so
// the invariant check cannot go through it and connects to the server
// directly, and verifies.
func TestCheckGoesDirectWhenThePoolerIsGone(t *testing.T) {
	t.Parallel()
	testutil.NeedPgBouncer(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 4, Duration: 1500 * time.Millisecond})
	s.DB.Via = viaPgBouncer(target.PgBouncer{Size: 4})
	db := openDB(t, s, 4)
	if len(db.Poolers()) != 1 || db.Proxy() != nil || db.PoolerTarget(0) != "pooler" {
		t.Fatalf("poolers %v, proxy %v", db.Poolers(), db.Proxy())
	}
	atFirstTick(&s, func() {
		if err := db.Poolers()[0].Kill(syscall.SIGKILL); err != nil {
			t.Error(err)
		}
	})
	r := runJob(t, s, db)
	if r.Invariants == nil || !r.Invariants.OK {
		t.Fatalf("invariants: %+v", r.Invariants)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "the invariant check connected to the server directly") {
		t.Errorf("notes %q", r.Notes)
	}
	if len(r.Faults) != 0 {
		t.Errorf("a deliberate kill on the timeline as a death: %+v", r.Faults)
	}
}

// diedTargets returns the targets of the deaths on r's timeline whose
// process was started again.
func diedTargets(t *testing.T, r *result.Result) []string {
	t.Helper()
	var out []string
	for _, f := range r.Faults {
		if f.Kind == "died" && !f.Injected && strings.Contains(f.Note, "started it again") {
			out = append(out, f.Target)
		}
	}
	return out
}

// TestKilledServerIsRestarted SIGKILLs the throwaway server mid-run (from
// outside, as a crash): supervision starts it again, the death is on the
// timeline, and nothing is lost.
func TestKilledServerIsRestarted(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 4, Duration: 2 * time.Second})
	db := openDB(t, s, 4)
	atFirstTick(&s, func() { syscall.Kill(db.Cluster().PID(), syscall.SIGKILL) })
	r := runJob(t, s, db)
	if got := diedTargets(t, r); len(got) != 1 || got[0] != "server" {
		t.Errorf("deaths %v (faults %+v), want the server's", got, r.Faults)
	}
	if r.Invariants == nil || !r.Invariants.OK {
		t.Errorf("invariants: %+v", r.Invariants)
	}
}

// TestFleetSurvivesItsProxy runs through a fleet of two and SIGKILLs
// HAProxy mid-run: it is started again on its port and the run goes on
// through it.
func TestFleetSurvivesItsProxy(t *testing.T) {
	t.Parallel()
	testutil.NeedHAProxy(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 4, Duration: 2 * time.Second})
	s.DB.Via = viaPgBouncer(target.PgBouncer{Size: 4, Poolers: 2})
	db := openDB(t, s, 4)
	if len(db.Poolers()) != 2 || db.Proxy() == nil || db.PoolerTarget(1) != "pooler 2 of 2" {
		t.Fatalf("poolers %v, proxy %v", db.Poolers(), db.Proxy())
	}
	pid := db.Proxy().PID()
	atFirstTick(&s, func() { syscall.Kill(pid, syscall.SIGKILL) })
	r := runJob(t, s, db)
	if got := diedTargets(t, r); len(got) != 1 || got[0] != "HAProxy" {
		t.Errorf("deaths %v (faults %+v), want HAProxy's", got, r.Faults)
	}
	if r.Invariants == nil || !r.Invariants.OK || strings.Contains(strings.Join(r.Notes, "\n"), "directly") {
		t.Errorf("invariants %+v, notes %q: want checked through the fleet", r.Invariants, r.Notes)
	}
	if p := r.Pooler; p == nil || p.Proxy == nil || !strings.Contains(p.Proxy.Note, "restarted") || len(p.Proxy.Servers) != 2 {
		t.Errorf("pooler %+v", p)
	}
}

// TestViaURLOfAnHAProxy measures a fleet txnbench did not start: --via
// the address of an HAProxy in front of two PgBouncers, --db the server.
// The run works as through one pooler; the counters read through the
// HAProxy are one member's, and the report says so.
func TestViaURLOfAnHAProxy(t *testing.T) {
	t.Parallel()
	testutil.NeedHAProxy(t)
	dbURL := testutil.SharedPostgres(t) // a database of its own: the server is not what it measures
	b := backendOf(t, dbURL)
	b.MaxClientConn = 50
	f, err := localdb.StartFleet(context.Background(), localdb.FleetOptions{Size: 2, Bouncer: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Stop() })
	s := spec(t, dbURL, runner.Config{Clients: 4, Iterations: 40})
	s.DB.Via = mustVia(t, f.URL(strings.TrimPrefix(mustURL(t, dbURL).Path, "/")))
	r := run(t, s)
	checkShape(t, r, 40)
	// Its admin console reaches one of the two: the counters say so.
	if p := r.Pooler; p == nil || !strings.Contains(p.Note, "leads to several poolers") {
		t.Errorf("pooler %+v: want a note that the counters are one pooler's", p)
	}
}
