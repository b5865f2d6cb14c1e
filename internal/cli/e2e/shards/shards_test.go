package shards

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
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
	"github.com/txnbench/txnbench/internal/testutil/plain"
	"gopkg.in/yaml.v3"
)

// TestShardedRun: four shards as separate processes drive one PostgreSQL:
// shard 0 alone creates the schema and loads the data, all four start one
// window together, the merged report's counts are the shards' sums, the
// whole run's ledger-based check is OK (no shard takes the others' events
// for invented ones), txnbench check finds a deleted event (exit 3), and
// one process with the same flags does the same total work.
func TestShardedRun(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	dir := t.TempDir()
	args := append([]string{"train-events", "--clients", "8", "--iterations", "42", "--seed", "11", "--progress", "200ms"}, clitest.Quick...)
	rs, stderr := clitest.RunShards(t, 4, dbURL, dir, args...)

	// The schema was created and loaded once, by shard 0.
	for i, e := range stderr {
		if loaded := strings.Contains(e, "loaded 200 of 200 initial events"); loaded != (i == 0) {
			t.Errorf("shard %d: loaded the data: %v\n%s", i, loaded, e)
		}
		if reused := strings.Contains(e, "using the existing train-events schema and data"); reused != (i > 0) {
			t.Errorf("shard %d: used the existing data: %v\n%s", i, reused, e)
		}
		if rs[i].Data["events"] != 200 {
			t.Errorf("shard %d found %v", i, rs[i].Data)
		}
	}
	// One window: the same agreed start, every shard's window opened at it.
	id := rs[0].Shards[0].RunID
	var clients int
	var iterations int64
	for i, r := range rs {
		sh := r.Shards[0]
		if sh.RunID != id || sh.Index != i || sh.Count != 4 || !sh.Start.Equal(rs[0].Shards[0].Start) {
			t.Errorf("shard %d: %+v; shard 0: %+v", i, sh, rs[0].Shards[0])
		}
		opened := r.Started.Add(time.Duration(sh.SkewMS * float64(time.Millisecond)))
		if d := opened.Sub(sh.Start); math.Abs(d.Seconds()) > 0.5 {
			t.Errorf("shard %d opened its window %s from the agreed start: %+v started %s", i, d, sh, r.Started)
		}
		clients += r.Config.Clients
		iterations += r.Config.Iterations
	}
	if clients != 8 || iterations != 42 {
		t.Errorf("the shards ran %d clients and %d iterations, want 8 and 42", clients, iterations)
	}
	// The merge: op counts add up, the whole run's check is OK.
	merged := filepath.Join(dir, "merged.json")
	stdout, errOut := clitest.MustRun(t, "report", filepath.Join(dir, "shard-0.json"), filepath.Join(dir, "shard-1.json"),
		filepath.Join(dir, "shard-2.json"), filepath.Join(dir, "shard-3.json"), "--json", merged, "--html", filepath.Join(dir, "run.html"))
	if page, err := os.ReadFile(filepath.Join(dir, "run.html")); err != nil || !strings.Contains(string(page), "shard 2 of 4 of run "+id) {
		t.Errorf("the HTML report does not list the shards (%v)", err)
	}
	plain.Contains(t, "merged report", stdout, "invariants: OK", "shard      shard 3 of 4 of run "+id, "no event lost or invented")
	m := clitest.LoadResult(t, merged)
	for _, o := range m.Ops {
		var sum int64
		for _, r := range rs {
			sum += r.Op(o.Name).Count
		}
		if o.Count != sum {
			t.Errorf("merged %s: %d, the shards' sum %d", o.Name, o.Count, sum)
		}
	}
	if c := m.Op(result.CycleOp).Count; c != 42 || m.Config.Iterations != 42 || m.Config.Clients != 8 {
		t.Errorf("merged: %d cycles, %d iterations, %d clients; want 42, 42, 8", c, m.Config.Iterations, m.Config.Clients)
	}
	// A shard of another run is refused.
	other := filepath.Join(dir, "other.json")
	rs[1].Shards[0].RunID = "another-run"
	if err := rs[1].Save(other); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := clitest.Run("report", filepath.Join(dir, "shard-0.json"), other); code != exitcode.Usage || !strings.Contains(errOut, "shards of different runs") {
		t.Errorf("report of two runs' shards: exit %d %s", code, errOut)
	}

	// txnbench check counts every shard's books; a deleted event is lost.
	if code, stdout, errOut := clitest.Run("check", id, "--db", dbURL); code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("check: exit %d %s\n%s", code, errOut, stdout)
	}
	testutil.Exec(t, dbURL, "DELETE FROM events_jsonb WHERE id = (SELECT id FROM events_jsonb LIMIT 1)")
	code, stdout, errOut := clitest.Run("check", id, "--db", dbURL)
	if code != exitcode.Invariants || !strings.Contains(stdout, "FAIL no event lost or invented") {
		t.Errorf("check after a delete: exit %d, want %d\n%s\n%s", code, exitcode.Invariants, errOut, stdout)
	}

	if code, _, errOut := clitest.Run("check", "no-such-run", "--db", dbURL); code != exitcode.Usage || !strings.Contains(errOut, `no split run "no-such-run"`) {
		t.Errorf("check of an unknown run: exit %d %s", code, errOut)
	}
	// A run id is used once: a shard started again is refused.
	again := append(append([]string{"run"}, args...), "--db", dbURL, "--shard", "2/4")
	if code, _, errOut := clitest.Run(again...); code != exitcode.Usage || !strings.Contains(errOut, "give each run its own --run-id") {
		t.Errorf("a shard of a finished run: exit %d %s", code, errOut)
	}

	// One process with the same flags does the same total work.
	one := filepath.Join(dir, "one.json")
	clitest.MustRun(t, append(append([]string{"run"}, args...), "--db", dbURL, "--json", one)...)
	r := clitest.LoadResult(t, one)
	for _, o := range r.Ops {
		if o.Kind.IsTxn() || o.Kind == result.KindCycle {
			if mo := m.Op(o.Name); mo == nil || mo.Count != o.Count {
				t.Errorf("%s: one process %d, four shards %+v", o.Name, o.Count, mo)
			}
		}
	}
}

// TestShardBadInput: a wrong shard is refused before any work (exit 2)
// with the fix.
func TestShardBadInput(t *testing.T) {
	db := []string{"run", "train-events", "--db", "postgres://u:p@127.0.0.1:1/db", "--seed", "3"}
	cases := []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--shard", "4/4"}, "", `--shard "4/4": want I/N`},
		{[]string{"--shard", "x"}, "", `--shard "x": want I/N`},
		{[]string{"--shard", "-1/2"}, "", "want I/N"},
		{[]string{"--shards", "4"}, "", "--shards 4 needs JOB_COMPLETION_INDEX"},
		{[]string{"--shards", "4"}, "JOB_COMPLETION_INDEX=4", `JOB_COMPLETION_INDEX "4" with --shards 4: want an index from 0 to 3`},
		{[]string{"--shard", "0/2", "--shards", "2"}, "", "choose one"},
		{nil, "TXNBENCH_SHARD=1/0", `TXNBENCH_SHARD "1/0"`},
		{[]string{"--shard", "0/4", "--clients", "3"}, "", "--clients 3 is fewer than the 4 shards"},
		{[]string{"--shard", "0/4", "--iterations", "3"}, "", "--iterations 3 is fewer than the 4 shards"},
		{[]string{"--run-id", "x"}, "", "--run-id names a split run: add --shard I/N"},
	}
	for _, c := range cases {
		if c.env != "" {
			k, v, _ := strings.Cut(c.env, "=")
			t.Setenv(k, v)
		}
		code, _, stderr := clitest.Run(append(append([]string{}, db...), c.args...)...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v %s: exit %d, stderr %q; want %d saying %q", c.args, c.env, code, stderr, exitcode.Usage, c.want)
		}
		if c.env != "" {
			k, _, _ := strings.Cut(c.env, "=")
			os.Unsetenv(k)
		}
	}
	for _, args := range [][]string{
		{"run", "train-events", "--shard", "0/2", "--seed", "1"},
		{"run", "train-events", "--db", "temp-postgres", "--shard", "0/2", "--seed", "1"},
	} {
		if code, _, stderr := clitest.Run(args...); code != exitcode.Usage || !strings.Contains(stderr, "needs a database server every shard reaches") {
			t.Errorf("%v: exit %d %s", args, code, stderr)
		}
	}
	if code, _, stderr := clitest.Run("run", "train-events", "--db", "postgres://u:p@127.0.0.1:1/db", "--shard", "0/2"); code != exitcode.Usage || !strings.Contains(stderr, "needs --seed or --run-id") {
		t.Errorf("no seed: exit %d %s", code, stderr)
	}
}

// TestShardMissing: a shard whose partners never come gives up after
// --shard-wait (exit 1, saying what it waited for), and the run it left
// cannot be checked (exit 1, naming the missing shard).
func TestShardMissing(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	args := append([]string{"run", "train-events", "--db", dbURL, "--iterations", "4", "--clients", "2", "--run-id", "lonely", "--shard", "0/2", "--shard-wait", "500ms"}, clitest.Quick...)
	code, _, stderr := clitest.Run(args...)
	if code != exitcode.Failure || !strings.Contains(stderr, "only 1 of 2 shards registered within 500ms") {
		t.Fatalf("exit %d, want %d: %s", code, exitcode.Failure, stderr)
	}
	code, _, stderr = clitest.Run("check", "lonely", "--db", dbURL)
	if code != exitcode.Failure || !strings.Contains(stderr, "shard 0 (on ") || !strings.Contains(stderr, "shard 1 never registered") {
		t.Errorf("check: exit %d, want %d: %s", code, exitcode.Failure, stderr)
	}
}

// TestShardOtherSettingsRefused: two shards under one --run-id but with
// other --clients are not one run: the second to register is refused
// (exit 2, naming the fix), and the first stops waiting for it at once
// rather than running a window whose merge would mix two runs.
func TestShardOtherSettingsRefused(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	args := func(shard, clients string) []string {
		return append([]string{"run", "train-events", "--db", dbURL, "--iterations", "8", "--run-id", "mixed",
			"--shard", shard, "--clients", clients, "--shard-wait", "2m"}, clitest.Quick...)
	}
	first := exec.Command(os.Args[0], args("0/2", "2")...)
	first.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
	var firstErr clitest.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill() })

	code, _, stderr := clitest.Run(args("1/2", "4")...)
	if code != exitcode.Usage || !strings.Contains(stderr, "shard 1 of 2 of run mixed: shard 0 of this run id was started with other settings") ||
		!strings.Contains(stderr, "start every shard with the same flags but --shard, under a new --run-id") {
		t.Errorf("second shard: exit %d, want %d: %s", code, exitcode.Usage, stderr)
	}
	first.Wait() // long before --shard-wait
	if code := first.ProcessState.ExitCode(); code != exitcode.Usage || !strings.Contains(firstErr.String(), "shard 0 of 2 of run mixed: shard 1 was refused") {
		t.Errorf("first shard: exit %d, want %d: %s", code, exitcode.Usage, firstErr.String())
	}
	code, _, stderr = clitest.Run("check", "mixed", "--db", dbURL)
	if code != exitcode.Failure || !strings.Contains(stderr, "shard 1 (on ") || !strings.Contains(stderr, ") was refused: it was started with other settings") {
		t.Errorf("check: exit %d, want %d: %s", code, exitcode.Failure, stderr)
	}
}

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

// kubeJob is what the docs rely on in a Job manifest.
type kubeJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						ValueFrom struct {
							SecretKeyRef struct {
								Name string `yaml:"name"`
								Key  string `yaml:"key"`
							} `yaml:"secretKeyRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesManifests checks deploy/kubernetes: each manifest against
// Kubernetes' schema (kubernetes-validate, installed from PyPI by CI; it
// carries the schemas, so it needs no network), then the fields
// docs/scale-out.md relies on: Jobs whose one container runs the image's
// entry point with the database URL from a Secret; the shards' Job
// Indexed, with completions, parallelism and --shards equal; and their
// arguments accepted by txnbench (the run gets as far as connecting).
func TestKubernetesManifests(t *testing.T) {
	files, _ := filepath.Glob(clitest.Repo(t, "deploy/kubernetes", "*.yaml"))
	if len(files) < 2 {
		t.Fatalf("manifests: %v", files)
	}
	if v, err := exec.LookPath("kubernetes-validate"); err == nil {
		if out, err := exec.Command(v, append([]string{"--strict", "--quiet"}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("kubernetes-validate: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("CI needs kubernetes-validate (pip install kubernetes-validate) to check the manifests")
	} else {
		t.Log("kubernetes-validate missing: the manifests' schema is not checked, only their fields")
	}
	dockerfile, err := os.ReadFile(clitest.Repo(t, "deploy/kubernetes", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ENTRYPOINT \["([^"]+)"\]`).FindSubmatch(dockerfile)
	if m == nil || !strings.Contains(string(dockerfile), "entrypoint.sh "+string(m[1])) {
		t.Fatalf("the Dockerfile does not install entrypoint.sh as its ENTRYPOINT")
	}
	entry := string(m[1])
	commands := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var j kubeJob
		if err := yaml.Unmarshal(b, &j); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		pod := j.Spec.Template.Spec
		if j.APIVersion != "batch/v1" || j.Kind != "Job" || len(pod.Containers) != 1 || pod.RestartPolicy != "Never" || j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
			t.Errorf("%s: not a batch/v1 Job of one container, never restarted nor retried", name)
			continue
		}
		c := pod.Containers[0]
		if !slices.Equal(c.Command, []string{entry}) {
			t.Errorf("%s: command %q, want the image's entry point %s", name, c.Command, entry)
		}
		fromSecret := false
		for _, e := range c.Env {
			fromSecret = fromSecret || e.Name == "TXNBENCH_DB" && e.ValueFrom.SecretKeyRef.Name != "" && e.ValueFrom.SecretKeyRef.Key != ""
		}
		if !fromSecret {
			t.Errorf("%s: TXNBENCH_DB does not come from a Secret", name)
		}
		if len(c.Args) < 2 {
			t.Errorf("%s: args %q", name, c.Args)
			continue
		}
		commands[c.Args[0]] = true
		env := []string{"TXNBENCH_CLI_MAIN=1"}
		if c.Args[0] == "run" {
			i := slices.Index(c.Args, "--shards")
			if i < 0 || i+1 >= len(c.Args) {
				t.Errorf("%s: the run has no --shards N", name)
				continue
			}
			n, _ := strconv.Atoi(c.Args[i+1])
			if j.Spec.CompletionMode != "Indexed" || j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions != n || *j.Spec.Parallelism != n {
				t.Errorf("%s: want an Indexed Job with completions and parallelism %d (--shards)", name, n)
			}
			env = append(env, "JOB_COMPLETION_INDEX=0")
		}
		// Nothing listens on port 1: flags txnbench accepts end in a
		// failure to connect (exit 1), a usage error in exit 2.
		cmd := exec.Command(os.Args[0], append(c.Args, "--db", "postgres://u:p@127.0.0.1:1/db")...)
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitcode.Failure || !strings.Contains(string(out), "connection refused") {
			t.Errorf("%s: txnbench %s: exit %d, want %d (connection refused):\n%s", name, strings.Join(c.Args, " "), code, exitcode.Failure, out)
		}
	}
	if !commands["run"] || !commands["init"] {
		t.Errorf("want an init Job and a run Job, have %v", commands)
	}
}

// TestEntrypointPassesStop: a pod is stopped with SIGTERM to its entry
// point; txnbench gets it, ends the run and saves what it measured, and
// the entry point prints the result to the log and exits with txnbench's
// status (130). The shell ended at once and left txnbench running on.
func TestEntrypointPassesStop(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", append([]string{clitest.Repo(t, clitest.Entrypoint), "run", "train-events", "--duration", "5m", "--progress", "200ms"}, clitest.Quick...)...)
	cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1", "TXNBENCH_BIN="+os.Args[0], "TXNBENCH_DB=sqlite:"+filepath.Join(dir, "db"), "RESULTS="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: a txnbench left running is killed at the end
	stdout, stderr := &clitest.Buffer{}, &clitest.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	cmd.Process.Signal(syscall.SIGTERM)
	clitest.WaitExit(t, cmd, 30*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	if !strings.Contains(stdout.String(), "### txnbench result shard-0.json begin") || !strings.Contains(stdout.String(), "### txnbench result shard-0.json end") {
		t.Errorf("no result in the log:\n%s", stdout.String())
	}
}
