package job

import (
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestReplicationLagIsWatched: a run with standbys and telemetry on
// records each standby's lag as the primary saw it, sampled every
// lagEvery, streaming, with a write, flush and replay lag under write
// load (on today's code the result has no replication section).
func TestReplicationLagIsWatched(t *testing.T) {
	testutil.NeedPostgres(t)
	s := spec(t, "temp-postgres", runner.Config{Clients: 2, Duration: 2 * time.Second})
	s.Replication = Replication{Replicas: 2, Mode: localdb.SyncApply}
	r := run(t, s)
	if len(r.Replication) != 2 {
		t.Fatalf("lag of %d standbys, want 2: %+v", len(r.Replication), r.Replication)
	}
	for i, l := range r.Replication {
		if l.Name != localdb.StandbyName(i+1) || l.State != "streaming" || l.Samples < 4 {
			t.Errorf("standby %d: %+v", i+1, l)
		}
		if l.MaxReplayLagMS <= 0 || l.MaxFlushLagMS <= 0 || l.MaxWriteLagMS <= 0 {
			t.Errorf("%s: no lag under write load: %+v", l.Name, l)
		}
	}
	if r.Config.Topology == "" {
		t.Error("no topology in the result")
	}
}
