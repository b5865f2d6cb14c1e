package job

import (
	"testing"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	_ "github.com/txnbench/txnbench/internal/workload/workflow"
)

// TestServerConnectionsCountBackgroundSessions: a throwaway server is
// sized for the workload's background sessions too (the workflow's signal
// workers and its listener), directly and behind a PgBouncer.
func TestServerConnectionsCountBackgroundSessions(t *testing.T) {
	s := Spec{Workload: newWorkload(t, "workflow", "--signal-workers", "12"), Runner: runner.Config{Clients: 30}}
	if got := s.ServerConnections(); got != 30+13 {
		t.Errorf("direct: %d server connections, want 43", got)
	}
	s.DB.Via = viaPgBouncer(target.PgBouncer{Size: 4})
	if got := s.ServerConnections(); got != 4+13 {
		t.Errorf("via PgBouncer: %d server connections, want 17", got)
	}
	if got := (Spec{Workload: trainEvents(t), Runner: runner.Config{Clients: 30}}).ServerConnections(); got != 30 {
		t.Errorf("train-events: %d server connections, want 30", got)
	}
}
