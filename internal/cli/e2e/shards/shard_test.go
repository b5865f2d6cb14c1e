package shards

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
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
