package job

import (
	"testing"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestRunSessions: a one-transaction run with telemetry off opens three
// sessions, counted as the TCP connections a relay in front of the server
// accepts: the target's probe, which goes on as the load's (its lock and
// Init), the run's registration in the run table and the workload's
// Start; the client's; the check's. The load, the registration and Start
// had one each, and the probe one of its own (issue 40: every session is
// a connection and a backend forked at start-up).
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
	if n := accepted.Load(); n != 3 {
		t.Errorf("the run opened %d sessions, want 3 (probe, load, registration and Start; client; check)", n)
	}
}
