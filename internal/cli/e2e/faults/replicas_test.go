package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
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

// TestAsyncFailoverLossExits3: with async replication and the primary's
// WAL sender stopped (SIGSTOP) once the standby has replayed the load, a
// failover loses what
// the primary acknowledged since: the footer says how many events, the
// JSON says the same as the check's own count, and the run exits 3 as
// for any lost data. (The exact count against what each server held is
// internal/job's TestAsyncFailoverLosesWhatTheStandbyMissed.)
func TestAsyncFailoverLossExits3(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(testutil.Artifacts(t), t.Name()+".json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "temp-postgres", "--replicas", "1", "--replication", "async",
		"--clients", "2", "--rate", "20", "--duration", "10s", "--fault", "5s:failover", "--telemetry", "off", "--json", out}, clitest.Quick...)...)
	clitest.WaitFor(t, stderr, 0, `ready: primary on 127\.0\.0\.1:(\d+), standbys \(async\) on ports (\d+)`)
	m := regexp.MustCompile(`primary on 127\.0\.0\.1:(\d+), standbys \(async\) on ports (\d+)`).FindStringSubmatch(stderr.String())
	port, _ := strconv.Atoi(m[1])
	pm, _ := strconv.Atoi(clitest.OurPostmaster(t, port))
	clitest.WaitFor(t, stderr, 0, `loaded 200 of 200 initial events`)
	waitReplayed(t, m[1], clitest.OurPostmaster(t, mustAtoi(t, m[2])))
	senders := 0
	for _, kid := range clitest.ChildrenNamed(t, pm, "") {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(kid) + "/cmdline"); strings.Contains(string(b), "walsender") {
			syscall.Kill(kid, syscall.SIGSTOP) // SIGKILLed with the primary at the failover
			senders++
		}
	}
	if senders != 1 {
		t.Fatalf("%d WAL senders on the primary, want 1", senders)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Invariants {
		t.Fatalf("exit %d, want %d:\n%s\n%s", code, exitcode.Invariants, stdout, stderr)
	}
	m = regexp.MustCompile(`lost at failover: (\d+) acknowledged events\n`).FindStringSubmatch(stdout.String())
	if m == nil || m[1] == "0" || !strings.Contains(stdout.String(), "invariants: VIOLATED") {
		t.Fatalf("no loss at failover in the footer:\n%s", stdout)
	}
	r := clitest.LoadResult(t, out)
	l := r.LostAtFailover()
	// the check's own line: "N events live or archived; expected M ..."
	var found, expected int64
	fmt.Sscanf(r.Invariants.Items[0].Detail, "%d events live or archived; expected %d", &found, &expected)
	if l == nil || strconv.FormatInt(l.Count, 10) != m[1] || l.Count != expected-found {
		t.Errorf("lost at failover %+v, footer %s, the check's own count %d - %d", l, m[1], expected, found)
	}
}

// waitReplayed waits until the standby whose postmaster is standbyPM has
// replayed what the primary on port had written when it was called. It
// logs in as the superuser, with the password the standby's own
// configuration holds (the test runs as root).
func waitReplayed(t *testing.T, port, standbyPM string) {
	t.Helper()
	pw := regexp.MustCompile(`password=(\w+)`).FindStringSubmatch(standbyConf(t, standbyPM))[1]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tg, err := target.OpenURL(ctx, "postgres://postgres:"+pw+"@127.0.0.1:"+port+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var lsn string
	if err := target.QueryRow(ctx, c, "SELECT pg_current_wal_lsn()::text", nil, &lsn); err != nil {
		t.Fatal(err)
	}
	ok := testutil.Poll(3*time.Minute, 20*time.Millisecond, func() bool {
		var n int64
		return target.QueryRow(ctx, c, "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn >= $1::text::pg_lsn", []any{lsn}, &n) == nil && n == 1
	})
	if !ok {
		t.Fatalf("the standby did not replay up to %s", lsn)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
