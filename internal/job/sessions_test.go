package job

import (
	"testing"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestRunSessions: a one-transaction run with telemetry off opens four
// sessions, counted as the TCP connections a relay in front of the server
// accepts: the target's probe; one for the load (its lock and Init), the
// run's registration in the run table and the workload's Start; the
// client's; the check's. The load, the registration and Start had one
// each (issue 40: every session is a connection and a backend forked at
// start-up).
func TestRunSessions(t *testing.T) {
	u := mustURL(t, testutil.SharedPostgres(t))
	addr, accepted := testutil.CountingRelay(t, u.Host)
	q := u.Query()
	q.Set("sslmode", "disable") // one connection a session
	u.RawQuery, u.Host = q.Encode(), addr
	s := spec(t, u.String(), runner.Config{Clients: 1, Iterations: 1})
	s.Telemetry.Off = true
	db := openDB(t, s, 1)
	r := runJob(t, s, db)
	if r.Invariants == nil || !r.Invariants.OK {
		t.Fatalf("invariants %+v, want checked and OK", r.Invariants)
	}
	if n := accepted.Load(); n != 4 {
		t.Errorf("the run opened %d sessions, want 4 (probe; load, registration and Start; client; check)", n)
	}
}
