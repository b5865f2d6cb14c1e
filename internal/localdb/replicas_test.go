package localdb

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// startReplicated starts a replica set for a test, stopped at its end.
// mustPsql is psql's output for sql on url, failing t on an error.
func mustPsql(t *testing.T, bin, url, sql string) string {
	t.Helper()
	out, err := psql(t, bin, url, sql)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// failOver kills rs's primary, member 0, and promotes member 1.
func failOver(t *testing.T, rs *ReplicaSet) {
	t.Helper()
	if i, err := rs.Fence(syscall.SIGKILL); err != nil || i != 0 {
		t.Fatalf("Fence: %d, %v; want member 0 fenced", i, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rs.Promote(ctx, 1); err != nil {
		t.Fatalf("Promote: %v", err)
	}
}

func startReplicated(t *testing.T, n int, mode Replication) *ReplicaSet {
	t.Helper()
	needBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rs, err := StartReplicated(ctx, Options{}, n, mode)
	if err != nil {
		t.Fatalf("StartReplicated: %v", err)
	}
	t.Cleanup(func() {
		if err := rs.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return rs
}

// TestReplicaSetFailsOver: a standby applies what the primary commits
// (sync-apply: a commit is acknowledged once it has), refuses writes, and
// after the primary is fenced and the standby promoted takes them; the
// URL of the set follows the primary; the fenced primary stays down.
func TestReplicaSetFailsOver(t *testing.T) {
	bin := psqlOrSkip(t)
	rs := startReplicated(t, 1, SyncApply)
	nodes := rs.Nodes()
	if len(nodes) != 2 || !nodes[0].Primary || nodes[1].Primary || nodes[1].Name != "standby1" {
		t.Fatalf("nodes: %+v", nodes)
	}
	primary, standby := nodes[0].URL(), nodes[1].URL()
	mustPsql(t, bin, primary, "CREATE TABLE t (v int); INSERT INTO t VALUES (1)")
	if got := mustPsql(t, bin, standby, "SELECT count(*) FROM t"); got != "1" {
		t.Fatalf("the standby has %s rows after a sync-apply commit, want 1", got)
	}
	if got := mustPsql(t, bin, primary, "SELECT application_name || ' ' || sync_state FROM pg_stat_replication"); got != "standby1 quorum" {
		t.Errorf("pg_stat_replication: %q, want standby1 quorum", got)
	}
	_, err := psql(t, bin, standby, "INSERT INTO t VALUES (2)")
	errSays(t, "a write on the standby", err, "read-only")
	// what Promote waits for: a standby's control file is not in
	// production (standby.signal alone went before its sessions could
	// write, and the write below failed as read-only under load)
	if !inProduction(rs.nodes[0].dataDir) || inProduction(rs.nodes[1].dataDir) {
		t.Fatalf("in production: primary %v, standby %v; want true, false", inProduction(rs.nodes[0].dataDir), inProduction(rs.nodes[1].dataDir))
	}
	failOver(t, rs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mustPsql(t, bin, standby, "INSERT INTO t VALUES (2)")
	if got := mustPsql(t, bin, rs.URL(), "SELECT count(*) FROM t WHERE NOT pg_is_in_recovery()"); got != "2" {
		t.Errorf("through the set's URL: %s rows on a primary, want 2", got)
	}
	if err := rs.Restart(ctx); err != nil {
		t.Fatalf("Restart of the new primary: %v", err)
	}
	if rs.Nodes()[0].PID() != 0 {
		t.Errorf("the fenced primary runs again (pid %d)", rs.Nodes()[0].PID())
	}
	if got := mustPsql(t, bin, standby, "SELECT count(*) FROM t"); got != "2" {
		t.Errorf("the new primary after its restart has %s rows, want 2", got)
	}
}

// TestStandbysFollowThePromoted: after a failover the other standby
// streams from the promoted one (its primary_conninfo rewritten and
// reloaded, its slot made there as the failover fault does), so what the
// new primary commits reaches it.
func TestStandbysFollowThePromoted(t *testing.T) {
	bin := psqlOrSkip(t)
	rs := startReplicated(t, 2, Async)
	nodes := rs.Nodes()
	poll := func(url, sql, want string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			got, err := psql(t, bin, url, sql)
			if err == nil && got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s on %s: %q (%v) after a minute, want %s", sql, url, got, err, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	mustPsql(t, bin, nodes[0].URL(), "CREATE TABLE t (v int); INSERT INTO t VALUES (1)")
	for _, n := range nodes[1:] {
		poll(n.URL(), "SELECT count(*) FROM t", "1")
	}
	failOver(t, rs)
	mustPsql(t, bin, nodes[1].URL(), "SELECT pg_create_physical_replication_slot('standby2')")
	poll(nodes[1].URL(), "SELECT pg_is_in_recovery()", "f")
	mustPsql(t, bin, nodes[1].URL(), "INSERT INTO t VALUES (2)")
	poll(nodes[2].URL(), "SELECT count(*) FROM t", "2")
	if got := mustPsql(t, bin, nodes[1].URL(), "SELECT application_name FROM pg_stat_replication"); got != "standby2" {
		t.Errorf("the new primary streams to %q, want standby2", got)
	}
}
