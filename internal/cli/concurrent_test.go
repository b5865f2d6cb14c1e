package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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
	var stdout, stderr [2]*syncBuffer
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", name, i))
		cmds[i], stdout[i], stderr[i] = startTxnbench(t, append(append([]string{"run"}, args...), "--json", out)...)
	}
	if during != nil {
		during()
	}
	for i, cmd := range cmds {
		cmd.Wait()
		codes[i], outs[i] = cmd.ProcessState.ExitCode(), stdout[i].String()
		if codes[i] != ExitOK && codes[i] != ExitInvariants {
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
// other run. connect-overhead only reads: each one's check is its own.
// On the code before the run table registered every run, the train-events
// pair both failed (exit 3, each took the other's events for invented
// ones) and one workflow run's starts all failed on duplicate ids while
// its check said OK for the other's workflows.
func TestConcurrentRunsOwnVerdicts(t *testing.T) {
	cl := testutil.Postgres(t)
	dir := t.TempDir()
	te := append([]string{"train-events", "--db", cl.URL(), "--duration", "3s", "--clients", "2"}, quick...)

	codes, outs, _ := twoRuns(t, dir, "te", nil, te...)
	for i := range 2 {
		if codes[i] != ExitOK || !strings.Contains(outs[i], "invariants: OK") || !strings.Contains(outs[i], "counted together with run train-events@") {
			t.Errorf("train-events run %d: exit %d, want 0 with both runs' books counted:\n%s", i, codes[i], outs[i])
		}
	}

	// A deletion planted while both run is found by the sum.
	ctx := context.Background()
	db, err := target.Open(ctx, cl.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
		if codes[i] != ExitInvariants || !strings.Contains(outs[i], "invariants: VIOLATED") {
			t.Errorf("train-events run %d with an event deleted: exit %d, want 3:\n%s", i, codes[i], outs[i])
		}
	}

	wf := []string{"workflow", "--db", cl.URL(), "--duration", "3s", "--clients", "2", "--signal-workers", "2"}
	codes, outs, rs := twoRuns(t, dir, "wf", nil, wf...)
	for i := range 2 {
		start := rs[i].Op("start")
		if codes[i] != ExitOK || start == nil || start.Count == 0 || start.ErrorCount() != 0 {
			t.Errorf("workflow run %d: exit %d, starts %+v: want every start to succeed", i, codes[i], start)
		}
		if !strings.Contains(outs[i], "invariants: not checked (run workflow@") || !strings.Contains(outs[i], "wrote these tables at the same time)") {
			t.Errorf("workflow run %d: want its check to say another run wrote its tables:\n%s", i, outs[i])
		}
	}

	co := []string{"connect-overhead", "--db", cl.URL(), "--duration", "2s", "--clients", "2"}
	codes, outs, _ = twoRuns(t, dir, "co", nil, co...)
	for i := range 2 {
		if codes[i] != ExitOK || !strings.Contains(outs[i], "invariants: OK") {
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
	cl := testutil.Postgres(t)
	dir := t.TempDir()
	ctx := context.Background()
	db, err := target.Open(ctx, cl.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := testutil.Session(t, db)
	a, _, aErr := startTxnbench(t, append([]string{"run", "train-events", "--db", cl.URL(), "--duration", "20s", "--clients", "2", "--variant", "text", "--json", filepath.Join(dir, "a.json")}, quick...)...)
	if !testutil.Poll(120*time.Second, 50*time.Millisecond, func() bool { // a's clients are connected (before, one session at a time)
		var n int64
		target.QueryRow(ctx, c, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'txnbench%' AND application_name <> 'txnbench-telemetry' AND pid <> pg_backend_pid()", nil, &n)
		return n >= 2
	}) {
		t.Fatalf("the first run's sessions never connected:\n%s", aErr.String())
	}
	code, stdout, stderr := runMain(append([]string{"run", "train-events", "--db", cl.URL(), "--duration", "3s", "--clients", "2",
		"--fault", "1s:terminate-backends", "--json", filepath.Join(dir, "b.json")}, quick...)...)
	if code != ExitOK {
		t.Fatalf("the faulted run: exit %d: %s\n%s", code, stderr, stdout)
	}
	a.Wait()
	if code := a.ProcessState.ExitCode(); code != ExitOK {
		t.Fatalf("the other run: exit %d\n%s", code, aErr.String())
	}
	ra, err := result.Load(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := result.Load(filepath.Join(dir, "b.json"))
	if err != nil {
		t.Fatal(err)
	}
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
