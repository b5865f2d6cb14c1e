package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
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
	cmd, stdout, stderr := clitest.StartQuickTrainEvents(t, "--db", "temp-postgres", "--replicas", "1", "--replication", "async",
		"--clients", "2", "--rate", "20", "--duration", "10s", "--fault", "5s:failover", "--telemetry", "off", "--json", out)
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

// replicasReady is the line naming the primary's port and the first
// standby's with --replicas.
const replicasReady = `PostgreSQL \S+ ready: primary on 127\.0\.0\.1:(\d+), standbys \([a-z-]+\) on ports (\d+)`

// TestFreedPrimaryPortGivesNothingAway is TestFreedPortGivesNothingAway
// with standbys, for the faults that free the primary's port: a
// failover and a switchover (the old primary fenced, its port free for
// the rest of the run, and first in the clients' URL of every member),
// and a kill-server (the primary down 5 s). A fake server run as nobody
// takes the port and asks every client that comes for a cleartext
// password, an MD5 hash or nothing: it receives no password and no query.
// The switchover's run reads from every member (--read-from any), so the
// read sessions, which go to any member, meet it too. While the fault
// holds the port, nobody can neither list nor write the directory of the
// primary's Unix socket, which the standbys' replication connections use
// (primary_conninfo), so no one can put a socket of theirs in its place.
// Each run ends with exit 0 (the workload's invariants OK where it has
// any), the refusals counted as auth.
func TestFreedPrimaryPortGivesNothingAway(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	clitest.NobodyCommand(t) // skips unless root: the test acts as nobody
	te := append([]string{"run", "train-events", "--db", "temp-postgres", "--replicas", "1", "--clients", "3", "--duration", "9s", "--progress", "1s"}, clitest.Quick...)
	for _, c := range []struct {
		name  string
		args  []string
		fault string
	}{
		// sync: an async failover under this load may lose acknowledged
		// events, exit 3 (TestAsyncFailoverLossExits3), which is not what
		// this test is about
		{"failover", append(te[:len(te):len(te)], "--replication", "sync"), "2s:failover"},
		{"kill-server", te, "2s:kill-server:5s"},
		{"switchover-read-from-any", []string{"run", "script", "-b", "ycsb-read@95", "-b", "ycsb-update@5", "--record-count", "20",
			"--db", "temp-postgres", "--replicas", "1", "--read-from", "any", "--clients", "3", "--duration", "9s", "--progress", "1s"}, "2s:switchover"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), "freed-primary-"+c.name+".json")
			cmd, stdout, stderr := clitest.Start(t, append(c.args, "--fault", c.fault, "--json", out)...)
			clitest.WaitFor(t, stderr, 0, replicasReady)
			m := regexp.MustCompile(replicasReady).FindStringSubmatch(stderr.String())
			socketDir := primarySocketDir(t, clitest.OurPostmaster(t, mustAtoi(t, m[2])))
			im := clitest.StartImpostor(t, m[1], 3*time.Second, clitest.PGImpostor)
			clitest.WaitFor(t, stderr, 0, `fault at [\d.]+ s: `+strings.SplitN(c.fault, ":", 3)[1])
			for _, try := range [][]string{{"ls", socketDir}, {"touch", filepath.Join(socketDir, ".s.PGSQL."+m[1])}} {
				if out, err := asNobody(t, try...); err == nil {
					t.Errorf("during the fault nobody could %v: %s", try, out)
				}
			}
			clitest.WaitExit(t, cmd, 3*time.Minute, stderr)
			rep := im.Report(t)
			if !rep.Bound || rep.Startups == 0 {
				t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d startups): nothing tested\n%s", m[1], rep.Bound, rep.Startups, stderr)
			}
			for _, msg := range rep.Sent {
				t.Errorf("a client answered the impostor's request %d with message %q (%d bytes)", msg.Auth, msg.Type, len(msg.Body))
			}
			code := cmd.ProcessState.ExitCode()
			if code != exitcode.OK || c.args[1] == "train-events" && !strings.Contains(stdout.String(), "invariants: OK") {
				t.Fatalf("exit %d, want 0 and the invariants OK:\n%s\n%s", code, stdout, stderr)
			}
			clitest.RefusalsAsAuth(t, out, strconv.Itoa(rep.Startups)+" startups")
		})
	}
}

// asNobody runs a command as the local user nobody; its output.
func asNobody(t *testing.T, args ...string) (string, error) {
	t.Helper()
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// primarySocketDir is the directory of the primary's Unix socket, as the
// configuration of the standby whose postmaster is standbyPM names it
// (primary_conninfo's host).
func primarySocketDir(t *testing.T, standbyPM string) string {
	t.Helper()
	conf := standbyConf(t, standbyPM)
	m := regexp.MustCompile(`primary_conninfo = '[^\n]*host=(/[^ ']+)`).FindStringSubmatch(conf)
	if m == nil {
		t.Fatalf("no socket directory in the standby's primary_conninfo:\n%s", conf)
	}
	return m[1]
}

// standbyConf is the postgresql.auto.conf of the standby whose
// postmaster is standbyPM, which txnbench writes: its primary_conninfo,
// with the password (the test runs as root).
func standbyConf(t *testing.T, standbyPM string) string {
	t.Helper()
	cmd, err := os.ReadFile("/proc/" + standbyPM + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(string(cmd), "\x00")
	conf, err := os.ReadFile(filepath.Join(args[slices.Index(args, "-D")+1], "postgresql.auto.conf"))
	if err != nil {
		t.Fatal(err)
	}
	return string(conf)
}

// TestReadOnlyTransactionsOnTheStandby: with --read-from replicas, tpcc's
// Order-Status and Stock-Level and the workflow's awaits are committed on
// the standby, by its own counter (pg_stat_database.xact_commit): at least
// as many as the run completed. For tpcc, whose read-only transactions are
// one transaction per op, at most that many and txnbench's own readings
// (the count before the run, and at most 20 after it until two agree,
// job.standbyXacts), so no writing transaction went there (it would fail
// on a standby anyway). Without the workloads' declarations --read-from refuses them
// (exit 2: they declare no read-only transaction).
func TestReadOnlyTransactionsOnTheStandby(t *testing.T) {
	const readings = 1 + 20 + 4 // txnbench's own, and a few for its sessions' logins
	t.Parallel()
	testutil.NeedPostgres(t)
	for _, c := range []struct {
		name  string
		args  []string
		ops   []string
		exact bool // one transaction per op: the standby's count is bounded above too
	}{
		{"tpcc", []string{"tpcc", "--warehouses", "1", "--items", "1000", "--customers-per-district", "30", "--wait=false",
			"--mix", "10,10,40,0,40", "--clients", "2", "--iterations", "200"}, []string{"order-status", "stock-level"}, true},
		{"workflow", []string{"workflow", "--clients", "2", "--signal-workers", "2", "--iterations", "20"}, []string{"await"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), strings.ReplaceAll(t.Name(), "/", "-")+".json")
			args := append(append([]string{"run"}, c.args...), "--db", "temp-postgres", "--replicas", "1", "--read-from", "replicas",
				"--telemetry", "off", "--json", out)
			code, stdout, stderr := clitest.Run(args...)
			if code != exitcode.OK {
				t.Fatalf("exit %d:\n%s\n%s", code, stdout, stderr)
			}
			r, err := result.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			var ro int64
			for _, name := range c.ops {
				o := r.Op(name)
				if o == nil || o.Count == 0 {
					t.Fatalf("no %s completed: %+v\n%s", name, o, stdout)
				}
				ro += o.Count + o.AfterWindow
			}
			rr := r.ReadRouting
			if rr == nil || len(rr.Standbys) != 1 {
				t.Fatalf("read routing %+v:\n%s", rr, stdout)
			}
			got := rr.Standbys[0].Commits
			t.Logf("standby1 committed %d transactions for %d read-only ops %v", got, ro, c.ops)
			if got < ro || c.exact && got > ro+readings {
				t.Errorf("standby1 committed %d transactions for the %d read-only ops %v sent to it:\n%s", got, ro, c.ops, stdout)
			}
			if !strings.Contains(stdout, rr.ServedLine()+"\n") || !strings.Contains(stdout, "invariants: OK") {
				t.Errorf("footer without %q or invariants OK:\n%s", rr.ServedLine(), stdout)
			}
		})
	}
}

// readFrom runs YCSB-B as two scripts (-b ycsb-read@95 -b ycsb-update@5)
// on a primary and one standby with --read-from replicas, one client
// over 20 records for a fixed 300 transactions, and returns its result.
func readFrom(t *testing.T, args ...string) (*result.Result, string) {
	t.Helper()
	// one file per subtest: with TXNBENCH_ARTIFACTS (CI) every test shares
	// one directory, and the two parallel subtests read each other's result
	out := filepath.Join(testutil.Artifacts(t), strings.ReplaceAll(t.Name(), "/", "-")+".json")
	all := append([]string{"run", "script", "-b", "ycsb-read@95", "-b", "ycsb-update@5", "--record-count", "20",
		"--db", "temp-postgres", "--replicas", "1", "--read-from", "replicas", "--clients", "1", "--iterations", "300",
		"--telemetry", "off", "--json", out}, args...)
	stdout, _ := clitest.MustRun(t, all...)
	r := clitest.LoadResult(t, out)
	rr := r.ReadRouting
	if rr == nil || rr.Stale == nil || rr.Reads < 200 || len(rr.Standbys) != 1 {
		t.Fatalf("read routing %+v:\n%s", rr, stdout)
	}
	// the standby's own counter: every read committed there (the
	// primary took them all before --read-from, and the standby's count
	// was then txnbench's few readings)
	if got := rr.Standbys[0].Commits; got < rr.Reads {
		t.Errorf("standby1 committed %d transactions, fewer than the %d reads sent to it:\n%s", got, rr.Reads, stdout)
	}
	if !strings.Contains(stdout, rr.StaleLine()+"\n") || !strings.Contains(stdout, rr.ServedLine()+"\n") {
		t.Errorf("footer without %q and %q:\n%s", rr.StaleLine(), rr.ServedLine(), stdout)
	}
	return r, stdout
}

// TestReadFromReplicasCountsStaleReads: with the standby's replay held
// back 300 ms (recovery_min_apply_delay, planted through --pg-conf, which
// the standbys inherit) the reads of the record the client just updated
// miss it and are counted stale; with sync-apply (a commit returns once
// the standby applied it) and no delay none is.
func TestReadFromReplicasCountsStaleReads(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	t.Run("delayed", func(t *testing.T) {
		t.Parallel()
		r, out := readFrom(t, "--pg-conf", "recovery_min_apply_delay=300ms")
		if rr := r.ReadRouting; *rr.Stale == 0 || rr.Own == 0 || *rr.Stale > rr.Own {
			t.Errorf("stale %d of %d own-write reads, want some, with replay 300 ms behind:\n%s", *rr.Stale, rr.Own, out)
		}
	})
	t.Run("sync-apply", func(t *testing.T) {
		t.Parallel()
		r, out := readFrom(t, "--replication", "sync-apply", "--telemetry", "on")
		if rr := r.ReadRouting; *rr.Stale != 0 || rr.Own == 0 {
			t.Errorf("stale %d of %d own-write reads, want none of some with sync-apply:\n%s", *rr.Stale, rr.Own, out)
		}
		// the primary's commits are the clients' less the reads: the
		// standbys' are counted beside them, not missing
		if c, ok := r.ServerCommits(); !ok || c.Standbys != r.ReadRouting.Commits() || !strings.Contains(out, " on the standbys for the clients' ") {
			t.Errorf("server commits %+v without the standbys':\n%s", c, out)
		}
	})
}

// TestStudyOfReadReplicas: a study over --vary replicas=0,1 with
// --read-from any runs both cells, the first on the primary alone (no
// routing: every member is the primary) and the second with its reads
// dealt over the primary and the standby, whose own counter shows the
// share it served.
func TestStudyOfReadReplicas(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	dir := t.TempDir()
	clitest.MustRun(t, "study", "script", "-b", "ycsb-read@95", "-b", "ycsb-update@5", "--record-count", "20",
		"--db", "temp-postgres", "--read-from", "any", "--vary", "replicas=0,1", "--clients", "2", "--iterations", "200",
		"--telemetry", "off", "--out", dir)
	for i, want := range []bool{false, true} {
		r := clitest.LoadResult(t, filepath.Join(dir, fmt.Sprintf("cell%02d-rep1.json", i+1)))
		rr := r.ReadRouting
		if got := rr != nil && len(rr.Standbys) == 1 && rr.Standbys[0].Commits > 0; got != want {
			t.Errorf("cell %d (replicas=%d): reads on a standby %v, want %v: %+v", i+1, i, got, want, rr)
		}
	}
}

// TestPoolServesTenThousandClients: 10,000 clients over 8 pooled
// connections (the runner's worker mode) do the exact work asked, every
// transaction waits for its connection in turn, and the pool's statistics
// count those waits.
func TestPoolServesTenThousandClients(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	out := filepath.Join(testutil.Artifacts(t), t.Name()+".json")
	clitest.MustRun(t, "run", "connect-overhead", "--query", "select1", "--rows", "0", "--db", dbURL,
		"--conn", "pool", "--pool-max", "8", "--clients", "10000", "--iterations", "20000",
		"--progress", "1h", "--telemetry", "off", "--json", out)
	r := clitest.LoadResult(t, out)
	counts := map[string]int64{}
	for _, o := range r.Ops {
		counts[o.Name] = o.Count
		if o.ErrorCount() != 0 || o.Unfinished != 0 {
			t.Errorf("op %s: errors %v, %d unfinished", o.Name, o.Errors, o.Unfinished)
		}
	}
	if counts[result.CycleOp] != 20000 || counts["pool_wait"] != 20000 {
		t.Errorf("op counts %v: want 20000 cycles, each with its pool wait", counts)
	}
	if p := r.Pool; p == nil || p.MaxConns != 8 || p.Acquires != 20000 || p.EmptyAcquires < 10000 || p.WaitS <= 0 {
		t.Errorf("pool stats %+v: want 8 connections, 20000 acquires, most of them waiting", p)
	}
}

// TestPoolOfManyClientsRecoversFromARestart: with more clients than the
// pool has connections, a server restarted mid-run is survived: clients
// back off on timers without holding the pool's places, ops succeed again
// after it, and nothing is lost. The run lasts until it says a cycle begun
// after the restart succeeded, however long a busy machine takes (a 5 s
// window was not enough under load: nothing succeeded in it), and is then
// interrupted.
func TestPoolOfManyClientsRecoversFromARestart(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	out := filepath.Join(testutil.Artifacts(t), t.Name()+".json")
	cmd, stdout, stderr := clitest.StartQuickTrainEvents(t, "--db", "temp-postgres", "--conn", "pool", "--pool-max", "4",
		"--clients", "200", "--duration", "1h", "--progress", "1s", "--telemetry", "off", "--json", out,
		"--fault", "2s:restart-server")
	recovered := regexp.MustCompile(`\(restart-server\): a cycle begun after it succeeded`)
	if !testutil.Poll(5*time.Minute, 100*time.Millisecond, func() bool { return recovered.MatchString(stderr.String()) }) {
		t.Fatalf("no cycle succeeded after the restart within 5 minutes:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	clitest.WaitExit(t, cmd, 2*time.Minute, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Fatalf("exit %d, want %d (interrupted): %s\n%s", code, exitcode.Interrupted, stderr.String(), stdout.String())
	}
	if !strings.Contains(stdout.String(), "invariants: OK") {
		t.Errorf("invariants not OK:\n%s", stdout.String())
	}
	r := clitest.LoadResult(t, out)
	if len(r.Faults) != 1 || !r.Faults[0].Injected || r.Faults[0].Recovery == nil || r.Faults[0].Recovery.FirstOKS == nil {
		t.Fatalf("the restart is not injected, or nothing succeeded after it: %+v", r.Faults)
	}
	if p := r.Pool; p == nil || p.EmptyAcquires == 0 {
		t.Errorf("pool stats %+v: want waits for the 4 connections", p)
	}
}

// TestInterruptInGraceExits130AtOnce: Ctrl-C in the grace period, with
// transactions that would run for minutes more, cancels them at once
// (exit 130, the result saved) rather than waiting out --grace, whether
// the clients run on a goroutine each (a pool as big as they are) or on
// the pool's workers (a pool smaller).
func TestInterruptInGraceExits130AtOnce(t *testing.T) {
	for _, pool := range []string{"6", "2"} {
		t.Run("pool-max="+pool, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			cmd, _, stderr := clitest.Start(t, "run", "train-events", "--clients", "6", "--conn", "pool", "--pool-max", pool,
				"--duration", "500ms", "--grace", "10m", "--rows", "100", "--delay", "1ms",
				"--think-min", "10m", "--think-max", "10m", "--telemetry", "off", "--progress", "100ms", "--json", out)
			clitest.WaitFor(t, stderr, 0, `duration reached`)
			cmd.Process.Signal(syscall.SIGINT)
			clitest.WaitExit(t, cmd, 60*time.Second, stderr)
			if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
			}
			if _, err := os.Stat(out); err != nil {
				t.Errorf("result not saved: %v\nstderr:\n%s", err, stderr.String())
			}
		})
	}
}

// TestPoolerDiesDuringLoad: the run's own PgBouncer, killed while the
// initial data is loading through it, is started again by supervision
// (as in the window) and the load runs again from scratch: the run
// completes with every initial event there and invariants OK, and a note
// says what happened. Before, supervision began with the window and the
// run ended with exit 1 ("loading initial events: ... unexpected EOF").
func TestPoolerDiesDuringLoad(t *testing.T) {
	t.Parallel()
	testutil.NeedPgBouncer(t)
	dbURL := testutil.SharedPostgres(t)
	const rows = 8000 // 8 batches: the test sees the load under way
	out := filepath.Join(t.TempDir(), "r.json")
	cmd, stdout, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", dbURL, "--via", "pgbouncer", "--duration", "1s",
		"--clients", "2", "--telemetry", "off", "--json", out}, append(clitest.Quick, "--rows", fmt.Sprint(rows))...)...)
	db := testutil.Open(t, dbURL)
	c := testutil.Session(t, db)
	ctx := context.Background()
	loading := testutil.Poll(120*time.Second, 10*time.Millisecond, func() bool {
		var n int64
		err := target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb", nil, &n)
		return err == nil && n >= 1000 && n < rows/2
	})
	bouncers := clitest.BouncersOf(t, cmd.Process.Pid)
	if !loading || len(bouncers) != 1 {
		cmd.Process.Kill()
		t.Fatalf("the load was not seen under way (%v) or not one PgBouncer of the run's own (%v):\n%s", loading, bouncers, stderr.String())
	}
	if err := syscall.Kill(bouncers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	clitest.WaitExit(t, cmd, 5*time.Minute, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.OK || !strings.Contains(stdout.String(), "\ninvariants: OK") {
		t.Fatalf("exit %d, want 0 with invariants OK:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	r := clitest.LoadResult(t, out)
	if r.Data["events"] != rows {
		t.Errorf("the run started from %d events, want all %d loaded", r.Data["events"], rows)
	}
	var noted bool
	for _, n := range r.Notes {
		noted = noted || strings.HasPrefix(n, "during the load, PgBouncer (pid ") && strings.Contains(n, "died unasked") && strings.Contains(n, "started it again")
	}
	if !noted || !strings.Contains(stderr.String(), "; the load failed (loading initial events: ") {
		t.Errorf("no note of the pooler's death during the load: %q\n%s", r.Notes, stderr.String())
	}
	for _, f := range r.Faults {
		if f.Kind == "died" {
			t.Errorf("a death during the load is on the window's timeline: %+v", f)
		}
	}
}

// TestFreedPortGivesNothingAway: while a fault holds a throwaway service
// down, a fake server run as another local user (nobody) takes its port
// and asks the clients that come for a cleartext password, an MD5 hash, or
// lets them in unasked. For each kind of downtime (the server killed with
// clients on it directly and behind PgBouncer, PgBouncer killed) the
// impostor receives no password message and no query: the clients refuse
// it; and the run still ends with its verdict, the refusals counted in a
// class of their own. On the code before, the clients and PgBouncer sent
// it the passwords. The three runs (each its own server, pooler and
// impostor on its own port) run side by side.
func TestFreedPortGivesNothingAway(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	server, pooler := clitest.ServerReady, clitest.PoolerReady
	for _, c := range []struct {
		name  string
		args  []string
		port  string // the line naming the port the fault frees
		fault string
	}{
		{"kill-server", nil, server, "2s:kill-server:5s"},
		{"kill-server-via-pgbouncer", []string{"--via", "pgbouncer"}, server, "2s:kill-server:5s"},
		{"kill-pooler", []string{"--via", "pgbouncer"}, pooler, "2s:kill-pooler:5s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), c.name+".json")
			args := append([]string{"run", "train-events", "--db", "temp-postgres", "--clients", "3", "--duration", "9s",
				"--progress", "1s", "--fault", c.fault, "--json", out}, clitest.Quick...)
			// The fault leaves the service down 5 s; the impostor lets the
			// port go at most 3 s after it got it, before the restart.
			code, stdout, stderr, port, rep := clitest.RunAgainstImpostor(t, c.port, clitest.PGImpostor, append(args, c.args...)...)
			if !rep.Bound || rep.Startups == 0 {
				t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d startups): nothing tested\n%s", port, rep.Bound, rep.Startups, stderr)
			}
			for _, m := range rep.Sent {
				t.Errorf("a client answered the impostor's request %d with message %q (%d bytes)", m.Auth, m.Type, len(m.Body))
			}
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("exit %d, want a verdict of OK:\n%s\n%s", code, stdout, stderr)
			}
			r := clitest.RefusalsAsAuth(t, out, fmt.Sprintf("%d startups", rep.Startups))
			for _, f := range r.Faults {
				if strings.Contains(f.Note, "failed") {
					t.Errorf("fault: %+v", f)
				}
			}
		})
	}
}

// TestFreedMariaDBPortGivesNothingAway is TestFreedPortGivesNothingAway
// for temp-mariadb (the run of issue 37, oltp-read-write, with checks that
// its clients are the load user and read no file): while kill-server holds
// it down, a fake MySQL 8 server
// run as nobody takes its port, offers caching_sha2_password and hands out
// its own RSA key, with a certificate of its own or no TLS. The clients
// (the load user) and txnbench's own sessions (root) refuse it at the TLS
// handshake: it receives no login (no user name) and no password; the
// refusals are class auth, the run's output names the port hint, and the
// run ends with its invariants OK. On the code before, the driver handed
// it the root password encrypted with its key (issue 37).
func TestFreedMariaDBPortGivesNothingAway(t *testing.T) {
	t.Parallel()
	testutil.NeedMariaDB(t)
	dir := testutil.Artifacts(t)
	out, check := filepath.Join(dir, "mariadb-kill-server.json"), filepath.Join(dir, "load-user.sql")
	// The clients' sessions (the check's too) are the load user's, who
	// may not read the server's files.
	if err := os.WriteFile(check, []byte(`-- name: the clients are the load user
SELECT CURRENT_USER() = 'txnbench_load@127.0.0.1';
-- name: the load user reads no file
SELECT load_file('/etc/hostname') IS NULL;
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "script", "-b", "oltp-read-write", "--db", "temp-mariadb", "--clients", "2", "--duration", "9s",
		"--progress", "1s", "--fault", "2s:kill-server:5s", "--check", check, "--json", out}
	code, stdout, stderr, port, rep := clitest.RunAgainstImpostor(t, clitest.MariaDBReady, clitest.MySQLImpostor, args...)
	if !rep.Bound || rep.Conns == 0 {
		t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d connections): nothing tested\n%s", port, rep.Bound, rep.Conns, stderr)
	}
	if rep.Startups > 0 || rep.Handshakes > 0 || len(rep.Sent) > 0 || len(rep.Leaked) > 0 {
		t.Errorf("the impostor got %d logins, %d TLS handshakes, %d messages, %d passwords, want none", rep.Startups, rep.Handshakes, len(rep.Sent), len(rep.Leaked))
	}
	if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("exit %d, want a verdict of OK:\n%s\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"the clients are the load user", "the load user reads no file"} {
		if !strings.Contains(stdout, "ok   "+name) {
			t.Errorf("no %q ok:\n%s", name, stdout)
		}
	}
	r := clitest.RefusalsAsAuth(t, out, fmt.Sprintf("%d connections, %d TLS requests", rep.Conns, rep.SSLRequests))
	if r.TLS == nil || r.TLS.Verify != "tls-ca against the run's CA" {
		t.Errorf("tls = %+v, want the clients' TLS, verified against the run's CA", r.TLS)
	}
	if clitest.OutageErrors(r)["auth"] > 0 && !strings.Contains(stdout+stderr, "another local process may hold the port") {
		t.Errorf("auth errors in the outage, and the output does not name the port hint:\n%s\n%s", stdout, stderr)
	}
}
