package job

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestAsyncFailoverLosesWhatTheStandbyMissed plants a loss: with async
// replication, the primary's WAL sender is stopped (SIGSTOP) once the
// standby has caught up (nothing more leaves the primary, not even into
// the standby's socket buffer), a run commits on the primary alone, and
// the failover
// the failover fault does promotes the standby. The check of that run's
// ledger on the new primary finds missing exactly what the primary had
// and the standby had not, counted on each server before the failover,
// and the invariants fail (exit 3 for the user). On today's code without
// Check.Lost there is no figure to compare. On the way, Open is held to
// one Target per endpoint as TestPooledThrowawayOpensOnce holds a pooled
// one (the superuser's, for the load role, and the clients' at every
// member, following the primary), with no URL of its own parsed again:
// it opened the clients' Target at the primary alone, closed it and
// opened it again at every member before.
func TestAsyncFailoverLosesWhatTheStandbyMissed(t *testing.T) {
	testutil.NeedPostgres(t)
	ctx := context.Background()
	s := spec(t, "temp-postgres", runner.Config{Clients: 2, Duration: time.Second})
	s.Replication = Replication{Replicas: 1, Mode: localdb.Async}
	db := openOnce(t, s, "the clients' at every member") // endpoints_test.go
	if !target.MultiHost(db.conn.URL) || !strings.Contains(db.conn.URL, "target_session_attrs=read-write") {
		t.Errorf("the clients connect to %s, not to whichever member is the primary", target.MaskURL(db.conn.URL))
	}
	runJob(t, s, db) // the events loaded, and a window's commits
	rs := db.replicas
	primary, standby := rs.Nodes()[0], rs.Nodes()[1]
	waitCaughtUp(t, db.member(primary.Cluster), db.member(standby.Cluster))

	// the standby hears nothing more
	sender := childWith(t, primary.PID(), "walsender")
	if err := syscall.Kill(sender, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(sender, syscall.SIGCONT)
	s.Fresh = false
	s.Workload = trainEvents(t, quick...)
	r := runJob(t, s, db)
	if !r.Invariants.OK {
		t.Fatalf("before the failover: %+v", r.Invariants)
	}
	events := s.Workload.(interface{ Tables() string }).Tables()
	onPrimary, onStandby := countEvents(t, db.member(primary.Cluster), events), countEvents(t, db.member(standby.Cluster), events)
	planted := onPrimary - onStandby
	if planted <= 0 {
		t.Fatalf("nothing planted: %d events on the primary, %d on the standby", onPrimary, onStandby)
	}

	note := db.failover(ctx, false)
	if !strings.Contains(note, "standby1 promoted") {
		t.Fatalf("failover: %s", note)
	}
	var ch any
	err := onServer(ctx, db.serverSpec(s), func(c target.Conn) error { // as the check does, on whichever is the primary
		got, err := s.Workload.Check(ctx, c)
		ch = got
		if err != nil {
			return err
		}
		if got.Lost == nil || got.Lost.Count != planted || got.Lost.Unit != "events" {
			t.Errorf("lost %+v, want %d events (%d on the primary, %d on the standby)", got.Lost, planted, onPrimary, onStandby)
		}
		if got.OK || got.Items[0].OK {
			t.Errorf("the invariants hold after a loss: %+v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("planted %d lost events; check %+v", planted, ch)
}

// waitCaughtUp waits until the standby has replayed all the primary
// has written.
func waitCaughtUp(t *testing.T, primary, standby target.Spec) {
	t.Helper()
	ctx := context.Background()
	var want int64
	if err := onServer(ctx, primary, func(c target.Conn) error {
		return target.QueryRow(ctx, c, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint", nil, &want)
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var got int64
		if err := onServer(ctx, standby, func(c target.Conn) error {
			return target.QueryRow(ctx, c, "SELECT pg_wal_lsn_diff(coalesce(pg_last_wal_replay_lsn(), '0/0'), '0/0')::bigint", nil, &got)
		}); err != nil {
			t.Fatal(err)
		}
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby replayed %d of %d bytes of WAL after a minute", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countEvents counts train-events' events, live and archived, in table
// and its archive on the server at sp.
func countEvents(t *testing.T, sp target.Spec, table string) int64 {
	t.Helper()
	ctx := context.Background()
	var n int64
	if err := onServer(ctx, sp, func(c target.Conn) error {
		return target.QueryRow(ctx, c, "SELECT (SELECT count(*) FROM "+table+") + (SELECT count(*) FROM "+table+"_archive)", nil, &n)
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// childWith is the child of the postmaster pm whose title holds what.
func childWith(t *testing.T, pm int, what string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pm) {
			continue
		}
		if cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.Contains(string(cmd), what) {
			return pid
		}
	}
	t.Fatalf("no %s under postmaster %d", what, pm)
	return 0
}
