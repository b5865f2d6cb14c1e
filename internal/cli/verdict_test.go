package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// lastLine is the last line of s, the one-line error a user sees.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestReadOnlyDatabase: train-events against a database made read-only
// after init never adds anything: it exits 1 saying so, its errors are
// classed read_only, and the clients back off instead of hammering the
// server (far fewer errors than the cycles they could have run).
func TestReadOnlyDatabase(t *testing.T) {
	cl := testutil.Postgres(t)
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", cl.Port())
	if code, _, stderr := runMain(append([]string{"init", "train-events", "--db", url}, quick...)...); code != ExitOK {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	ctx := context.Background()
	tg, err := target.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "ALTER DATABASE postgres SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", url, "--duration", "2s", "--clients", "2", "--telemetry", "off", "--json", out}, quick...)
	code, stdout, stderr := runMain(args...)
	if code != ExitFailure || !strings.HasPrefix(lastLine(stderr), "txnbench: no add succeeded: ") || !strings.Contains(lastLine(stderr), "failed (read_only: ") {
		t.Fatalf("exit %d, stderr %q; want exit 1 saying no add succeeded (read_only)\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "invariants: OK") {
		t.Errorf("the check of what did not change should pass:\n%s", stdout)
	}
	r, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	add := r.Op("add")
	if add == nil || add.Count != 0 || add.ErrorCount() == 0 || add.Errors["read_only"] != add.ErrorCount() {
		t.Fatalf("add: %+v", add)
	}
	// Without backoff each client fails an INSERT about every millisecond
	// (--delay 1ms): thousands in 2 s. Backing off up to 1 s leaves a few
	// dozen.
	t.Logf("%d errors", add.ErrorCount())
	if n := add.ErrorCount(); n > 200 {
		t.Errorf("%d errors in 2 s from 2 clients: the clients did not back off", n)
	}
}
