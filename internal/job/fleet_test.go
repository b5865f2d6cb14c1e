package job

import (
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestCheckGoesDirectWhenThePoolerIsGone kills the run's own PgBouncer on
// purpose (as a fault with no restart does): supervision leaves it down, so
// the invariant check cannot go through it and connects to the server
// directly, and verifies.
func TestCheckGoesDirectWhenThePoolerIsGone(t *testing.T) {
	testutil.NeedPgBouncer(t)
	s := spec(t, TempPostgres, runner.Config{Clients: 4, Duration: 1500 * time.Millisecond})
	s.Pooler = Pooler{Via: ViaPgBouncer, Size: 4}
	db := openDB(t, s, 4)
	if len(db.Poolers()) != 1 || db.Proxy() != nil || db.PoolerTarget(0) != "pooler" {
		t.Fatalf("poolers %v, proxy %v", db.Poolers(), db.Proxy())
	}
	atFirstTick(&s, func() {
		if err := db.Poolers()[0].Kill(); err != nil {
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
