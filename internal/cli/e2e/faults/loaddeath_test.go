package faults

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

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
