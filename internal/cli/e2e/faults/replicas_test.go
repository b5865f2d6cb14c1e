package faults

import (
	"strings"
	"testing"
)

// TestFailoverWithSyncReplicas: with two sync standbys a failover
// promotes one, the clients follow it and commit there, and the ledger
// finds nothing of what the primary acknowledged missing; the topology
// is in the result.
func TestFailoverWithSyncReplicas(t *testing.T) {
	t.Parallel()
	r := runFaults(t, []string{"--replicas", "2", "--replication", "sync", "--duration", "9s", "--rate", "10"}, "2s:failover")
	checkFailover(t, r.Config.Topology, "primary and 2 standbys, sync", r.Faults[0].Note, "promoted")
	if l := r.LostAtFailover(); l == nil || l.Count != 0 {
		t.Errorf("lost at failover: %+v, want 0", l)
	}
	if !strings.Contains(r.Config.DB, "target_session_attrs=read-write") || strings.Count(r.Config.DB, "127.0.0.1:") != 3 {
		t.Errorf("the database URL does not name the three servers to follow the primary: %s", r.Config.DB)
	}
}

// TestSwitchoverThroughPgBouncer: a switchover under --via pgbouncer,
// sync-apply: txnbench's PgBouncer follows the new primary, nothing the
// old one acknowledged is lost.
func TestSwitchoverThroughPgBouncer(t *testing.T) {
	t.Parallel()
	r := runFaults(t, []string{"--replicas", "1", "--replication", "sync-apply", "--via", "pgbouncer", "--duration", "9s", "--rate", "10"}, "2s:switchover")
	checkFailover(t, r.Config.Topology, "primary and 1 standby, sync-apply", r.Faults[0].Note, "standby1 promoted")
	if !strings.Contains(r.Faults[0].Note, "PgBouncer restarted pointing at it") {
		t.Errorf("PgBouncer did not follow: %s", r.Faults[0].Note)
	}
	if l := r.LostAtFailover(); l == nil || l.Count != 0 {
		t.Errorf("lost at failover: %+v, want 0", l)
	}
}

func checkFailover(t *testing.T, topology, wantTopology, note, wantNote string) {
	t.Helper()
	if !strings.HasPrefix(topology, wantTopology) {
		t.Errorf("topology %q, want %s...", topology, wantTopology)
	}
	if !strings.Contains(note, " promoted (the most WAL received: ") || !strings.Contains(note, wantNote) || !strings.Contains(note, "the old primary fenced") {
		t.Errorf("the fault's note: %q", note)
	}
}
