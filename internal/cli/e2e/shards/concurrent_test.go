package shards

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// twoRuns runs the real command twice at once, each writing its result to
// dir/NAME-I.json, while during runs (if not nil) acts on the database,
// and returns each one's exit status, stdout and result.
func twoRuns(t *testing.T, dir, name string, during func(), args ...string) (codes [2]int, outs [2]string, rs [2]*result.Result) {
	t.Helper()
	var cmds [2]*exec.Cmd
	var stdout, stderr [2]*clitest.Buffer
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", name, i))
		cmds[i], stdout[i], stderr[i] = clitest.Start(t, append(append([]string{"run"}, args...), "--json", out)...)
	}
	if during != nil {
		during()
	}
	for i, cmd := range cmds {
		cmd.Wait()
		codes[i], outs[i] = cmd.ProcessState.ExitCode(), stdout[i].String()
		if codes[i] != exitcode.OK && codes[i] != exitcode.Invariants {
			t.Fatalf("%s run %d: exit %d\n%s", name, i, codes[i], stderr[i].String())
		}
		var err error
		if rs[i], err = result.Load(filepath.Join(dir, fmt.Sprintf("%s-%d.json", name, i))); err != nil {
			t.Fatal(err)
		}
	}
	return codes, outs, rs
}

// TestConcurrentRunsOwnVerdicts: two runs of each workload at once on one
// PostgreSQL database get verdicts of their own, never the other's and
// never a false violation. train-events counts the sum of both runs'
// books (each run's check says so): OK, and a row deleted while they ran
// is still found (exit 3 for both). workflow has no books: its starts do
// not collide on ids, and each check says it did not check, naming the
// other run; so does pgbench's tpcb-like. connect-overhead only reads:
// each one's check is its own.
// On the code before the run table registered every run, the train-events
// pair both failed (exit 3, each took the other's events for invented
// ones) and one workflow run's starts all failed on duplicate ids while
// its check said OK for the other's workflows.
func TestConcurrentRunsOwnVerdicts(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	dir := t.TempDir()
	// Each pair's windows overlap for their duration; a --rate keeps the
	// work in them small (the verdicts are about whose work is whose).
	te := append([]string{"train-events", "--db", dbURL, "--duration", "3s", "--rate", "20", "--clients", "2", "--telemetry", "off"}, clitest.Quick...)

	codes, outs, _ := twoRuns(t, dir, "te", nil, te...)
	for i := range 2 {
		if codes[i] != exitcode.OK || !strings.Contains(outs[i], "invariants: OK") || !strings.Contains(outs[i], "counted together with run train-events@") {
			t.Errorf("train-events run %d: exit %d, want 0 with both runs' books counted:\n%s", i, codes[i], outs[i])
		}
	}

	// report merges the two as parts of one run (docs/html.md): both
	// verdicts held the sum, so the merged one does.
	// A busy machine may start the second run seconds after the first,
	// which report refuses to merge: that says nothing of the verdicts.
	code, stdout, stderr := clitest.Run("report", filepath.Join(dir, "te-0.json"), filepath.Join(dir, "te-1.json"))
	if strings.Contains(stderr, "did not run at the same time") {
		t.Logf("not merged: %s", stderr)
	} else if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Errorf("report of the two runs: exit %d, want 0 and OK: %s\n%s", code, stderr, stdout)
	}

	// A deletion planted while both run is found by the sum.
	ctx := context.Background()
	db := testutil.Open(t, dbURL)
	c := testutil.Session(t, db)
	deleted := false
	var before int64
	if err := target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb", nil, &before); err != nil {
		t.Fatal(err)
	}
	codes, outs, _ = twoRuns(t, dir, "te-del", func() {
		testutil.Poll(60*time.Second, 20*time.Millisecond, func() bool { // the runs are adding events
			var n int64
			target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb", nil, &n)
			return n > before+40
		})
		testutil.Poll(60*time.Second, 50*time.Millisecond, func() bool {
			_, err := c.Exec(ctx, "DELETE FROM events_jsonb_archive WHERE id IN (SELECT id FROM events_jsonb_archive LIMIT 1)")
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb_archive", nil, &n)
			deleted = n > 0 // the archive had a row: one is gone
			return deleted
		})
	}, te...)
	if !deleted {
		t.Fatal("no archived event to delete while the runs ran")
	}
	for i := range 2 {
		if codes[i] != exitcode.Invariants || !strings.Contains(outs[i], "invariants: VIOLATED") {
			t.Errorf("train-events run %d with an event deleted: exit %d, want 3:\n%s", i, codes[i], outs[i])
		}
	}

	wf := []string{"workflow", "--db", dbURL, "--duration", "3s", "--rate", "20", "--clients", "2", "--signal-workers", "2", "--telemetry", "off"}
	codes, outs, rs := twoRuns(t, dir, "wf", nil, wf...)
	for i := range 2 {
		start := rs[i].Op("start")
		if codes[i] != exitcode.OK || start == nil || start.Count == 0 || start.ErrorCount() != 0 {
			t.Errorf("workflow run %d: exit %d, starts %+v: want every start to succeed", i, codes[i], start)
		}
		if !strings.Contains(outs[i], "invariants: not checked (run workflow@") || !strings.Contains(outs[i], "wrote these tables at the same time)") {
			t.Errorf("workflow run %d: want its check to say another run wrote its tables:\n%s", i, outs[i])
		}
	}

	// pgbench's tpcb-like keeps no books: its balances moved together,
	// but by both runs' transactions, so neither says OK for the pair.
	sc := []string{"script", "-b", "tpcb-like", "--db", dbURL, "--duration", "2s", "--rate", "50", "--clients", "2", "--telemetry", "off"}
	codes, outs, _ = twoRuns(t, dir, "sc", nil, sc...)
	for i := range 2 {
		if codes[i] != exitcode.OK || !strings.Contains(outs[i], "invariants: not checked (run script@") {
			t.Errorf("tpcb-like run %d: exit %d, want its check to say another run wrote its tables:\n%s", i, codes[i], outs[i])
		}
	}

	// ycsb-d inserts: each run in a block of keys of its own, so
	// neither collides on the other's keys and each check counts its own
	// inserts. Before, both read the same first key at the start: 94.8%
	// success, every failure a duplicate key.
	yd := []string{"script", "-b", "ycsb-d", "-D", "record_count=300", "--db", dbURL, "--duration", "2s", "--rate", "100", "--clients", "2", "--telemetry", "off"}
	codes, outs, rs = twoRuns(t, dir, "yd", nil, yd...)
	for i := range 2 {
		ok := codes[i] == exitcode.OK && strings.Contains(outs[i], "invariants: OK") && strings.Contains(outs[i], "inserted rows match commits")
		for _, o := range rs[i].Ops {
			ok = ok && o.ErrorCount() == 0
		}
		if !ok || rs[i].Op(result.CycleOp) == nil || rs[i].Op(result.CycleOp).Count == 0 {
			t.Errorf("ycsb-d run %d: exit %d, want every transaction to succeed and its own check OK:\n%s", i, codes[i], outs[i])
		}
	}

	co := []string{"connect-overhead", "--db", dbURL, "--rows", "300", "--duration", "2s", "--rate", "50", "--clients", "2", "--telemetry", "off"}
	codes, outs, _ = twoRuns(t, dir, "co", nil, co...)
	for i := range 2 {
		if codes[i] != exitcode.OK || !strings.Contains(outs[i], "invariants: OK") {
			t.Errorf("connect-overhead run %d: exit %d, want its own OK:\n%s", i, codes[i], outs[i])
		}
	}
}

// TestTerminateBackendsOwnSessions: --fault terminate-backends ends the
// run's own sessions and leaves those of another txnbench on the same
// database alone: that run loses no session and sees no error. On the
// code before sessions carried their process in application_name, the
// fault ended every session named txnbench: the other run's too. (The
// runs write different tables, so that their checks are their own.)
func TestTerminateBackendsOwnSessions(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	dir := t.TempDir()
	ctx := context.Background()
	db := testutil.Open(t, dbURL)
	c := testutil.Session(t, db)
	// a's window spans b's fault however slowly b starts; the rates keep
	// both runs' work small.
	a, _, aErr := clitest.Start(t, append([]string{"run", "train-events", "--db", dbURL, "--duration", "20s", "--rate", "20", "--clients", "2", "--telemetry", "off", "--variant", "text", "--json", filepath.Join(dir, "a.json")}, clitest.Quick...)...)
	if !testutil.Poll(120*time.Second, 50*time.Millisecond, func() bool { // a's clients are connected (before, one session at a time)
		var n int64
		target.QueryRow(ctx, c, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'txnbench%' AND application_name <> 'txnbench-telemetry' AND datname = current_database() AND pid <> pg_backend_pid()", nil, &n)
		return n >= 2
	}) {
		t.Fatalf("the first run's sessions never connected:\n%s", aErr.String())
	}
	clitest.MustRun(t, append([]string{"run", "train-events", "--db", dbURL, "--duration", "3s", "--rate", "20", "--clients", "2",
		"--fault", "1s:terminate-backends", "--json", filepath.Join(dir, "b.json")}, clitest.Quick...)...)
	a.Wait()
	if code := a.ProcessState.ExitCode(); code != exitcode.OK {
		t.Fatalf("the other run: exit %d\n%s", code, aErr.String())
	}
	ra := clitest.LoadResult(t, filepath.Join(dir, "a.json"))
	rb := clitest.LoadResult(t, filepath.Join(dir, "b.json"))
	if len(rb.Faults) != 1 || !regexp.MustCompile(`^[1-9]\d* sessions terminated$`).MatchString(rb.Faults[0].Note) {
		t.Fatalf("the faulted run's fault: %+v, want its own sessions terminated", rb.Faults)
	}
	at := rb.Started.Add(time.Duration(rb.Faults[0].AtS * float64(time.Second)))
	if !ra.Started.Before(at) || !ra.Ended.After(at) {
		t.Fatalf("the fault at %s was outside the other run's window %s to %s: nothing tested", at, ra.Started, ra.Ended)
	}
	var errs int64
	for _, o := range ra.Ops {
		errs += o.ErrorCount()
	}
	if conn := ra.Op("connect"); errs != 0 || conn == nil || conn.Count != 2 {
		t.Errorf("the other run saw %d errors and %+v connects, want none and its 2 clients' first: the fault ended its sessions", errs, conn)
	}
}

// TestCheckPartialKilledShard: a split run whose shard 1 is killed
// mid-run cannot be checked whole (check says the shard stopped without
// finishing, exit 1); check --partial counts the killed shard's books as
// of its last heartbeat as a range with no top: no event lost (OK, and
// it says that invented ones cannot be told), and an event deleted
// afterwards is found (exit 3). Before, --partial did not exist (exit 2)
// and the run could never be checked.
func TestCheckPartialKilledShard(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	ctx := context.Background()
	db := testutil.Open(t, dbURL)
	c := testutil.Session(t, db)
	const id = "partial-test"
	args := func(shard string) []string {
		return append([]string{"run", "train-events", "--db", dbURL, "--shard", shard, "--run-id", id, "--seed", "5", "--duration", "8s", "--rate", "20", "--clients", "2", "--telemetry", "off"}, clitest.Quick...)
	}
	s0, _, s0Err := clitest.Start(t, args("0/2")...)
	s1, _, s1Err := clitest.Start(t, args("1/2")...)
	if !testutil.Poll(120*time.Second, 50*time.Millisecond, func() bool { // shard 1 has beaten with books
		var books string
		target.QueryRow(ctx, c, "SELECT coalesce(ledger, '') FROM txnbench_shards WHERE run_id = $1 AND shard = 1", []any{id}, &books)
		return regexp.MustCompile(`"committed_events":[1-9]`).MatchString(books)
	}) {
		t.Fatalf("shard 1 never recorded its books:\n%s", s1Err.String())
	}
	s1.Process.Kill()
	s1.Wait()
	s0.Wait()
	if code := s0.ProcessState.ExitCode(); code != exitcode.OK {
		t.Fatalf("shard 0: exit %d\n%s", code, s0Err.String())
	}
	var code int
	var stdout, stderr string
	if !testutil.Poll(120*time.Second, 500*time.Millisecond, func() bool {
		code, stdout, stderr = clitest.Run("check", id, "--db", dbURL)
		return strings.Contains(stderr, "stopped without finishing")
	}) || code != exitcode.Failure || !strings.Contains(stderr, "txnbench check "+id+" --partial") {
		t.Fatalf("check of the run with a killed shard: exit %d, want 1 naming --partial: %s\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = clitest.Run("check", id, "--db", dbURL, "--partial")
	if code != exitcode.OK || !regexp.MustCompile(`ok +no event lost +\d+ events live or archived; expected at least`).MatchString(stdout) ||
		!strings.Contains(stdout, "not checked: whether any was invented") || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("check --partial: exit %d, want 0 with the total as a range: %s\n%s", code, stderr, stdout)
	}
	if _, err := c.Exec(ctx, "DELETE FROM events_jsonb WHERE id IN (SELECT id FROM events_jsonb LIMIT 1)"); err != nil {
		t.Fatal(err)
	}
	// the killed shard's events after its last beat may hide one deletion:
	// delete more than two seconds of its work could add
	var committed int64
	target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb_archive", nil, &committed)
	if _, err := c.Exec(ctx, "DELETE FROM events_jsonb_archive"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = clitest.Run("check", id, "--db", dbURL, "--partial")
	if code != exitcode.Invariants || !strings.Contains(stdout, "FAIL no event lost") {
		t.Fatalf("check --partial after %d events were deleted: exit %d, want 3: %s\n%s", committed+1, code, stderr, stdout)
	}
}

// TestConcurrentRunKilled: a run that wrote the same tables at the same
// time and stopped without finishing (its heartbeat stopped: killed) is
// named so, and the check says it did not check rather than a verdict
// on that run's unknown work. (The killed run is a row planted in the run
// table, as a killed txnbench leaves it.)
func TestConcurrentRunKilled(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	ctx := context.Background()
	te := append([]string{"run", "train-events", "--db", dbURL, "--iterations", "20", "--clients", "2"}, clitest.Quick...)
	if code, stdout, stderr := clitest.Run(te...); code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("a run alone: exit %d: %s\n%s", code, stderr, stdout)
	}
	db := testutil.Open(t, dbURL)
	c := testutil.Session(t, db)
	if _, err := c.Exec(ctx, `INSERT INTO txnbench_shards (run_id, shard, shards, host, workload, args, skew_ms, state, tables, began_at, beat_at)
		VALUES ('ghost', 0, 1, 'elsewhere', 'train-events', '[]', 0, 'registered', 'train-events:events_jsonb', clock_timestamp(), clock_timestamp())`); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := clitest.Run(te...)
	if code != exitcode.OK || !regexp.MustCompile(`invariants: not checked \(run ghost \(no heartbeat since \d\d:\d\d:\d\d UTC: killed\?\) wrote these tables at the same time and stopped without finishing; txnbench check \S+ --partial checks what can be\)`).MatchString(stdout) {
		t.Fatalf("a run beside a killed one: exit %d, want 0 and not checked naming it: %s\n%s", code, stderr, stdout)
	}
	// check --partial of that run, as its line says, counts the killed
	// run's unknown work as a range with no top.
	id := regexp.MustCompile(`txnbench check (\S+) --partial`).FindStringSubmatch(stdout)[1]
	code, stdout, stderr = clitest.Run("check", id, "--db", dbURL, "--partial")
	if code != exitcode.OK || !strings.Contains(stdout, "expected at least") || !strings.Contains(stdout, "invariants: OK") {
		t.Errorf("check %s --partial beside a killed run: exit %d, want 0 with the total as a range: %s\n%s", id, code, stderr, stdout)
	}
	// A run long after the killed one died is checked alone.
	if code, stdout, stderr := clitest.Run(te...); code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Errorf("a run after the killed one: exit %d, want its own OK: %s\n%s", code, stderr, stdout)
	}
}
