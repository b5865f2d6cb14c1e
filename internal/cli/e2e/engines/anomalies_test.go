package engines

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// anomalyTries bounds the short runs a finding may take: an anomaly
// needs two transactions to interleave just so, which a loaded machine
// makes rarer, so a test runs a short window again (a fresh history each
// time) rather than one long one, and fails only when none of them shows
// the anomaly it wants.
const anomalyTries = 6

// anomalyRun is one short high-contention run (--keys 4 --clients 16) of
// workload on db at level, with args; it returns the exit status, the
// output and the result.
func anomalyRun(t *testing.T, workload, db, level string, args ...string) (int, string, *result.Result) {
	t.Helper()
	dir := t.TempDir()
	out, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	all := append([]string{"run", workload, "--db", db, "--isolation", level, "--keys", "4", "--clients", "16", "--txn-len", "4",
		"--duration", "2s", "--warmup", "0s", "--progress", "10s", "--telemetry", "off", "--json", out, "--html", html}, args...)
	code, stdout, stderr := clitest.Run(all...)
	var r result.Result
	if code == exitcode.OK || code == exitcode.Invariants {
		clitest.ReadJSON(t, out, &r)
	}
	if r.Invariants == nil || r.Invariants.Anomalies == nil {
		t.Fatalf("%s at %s: exit %d and no anomalies in the result\n%s\n%s", workload, level, code, stdout, stderr)
	}
	// The HTML report's summary says the verdict as the terminal does.
	if page := string(clitest.Read(t, html)); !strings.Contains(page, r.Invariants.Anomalies.Summary()) {
		t.Errorf("%s at %s: the HTML report does not say %q", workload, level, r.Invariants.Anomalies.Summary())
	}
	return code, stdout + stderr, &r
}

// classes are the classes a run found.
func classes(r *result.Result) []string {
	var c []string
	for _, f := range r.Invariants.Anomalies.Found {
		c = append(c, f.Class)
		if f.Violation {
			c = append(c, "VIOLATION")
		}
	}
	return c
}

// findAllowed runs until a run finds one of want, reported as allowed
// (exit 0, the anomalies: line naming it and what the level promises),
// and without any of never; at most anomalyTries runs.
func findAllowed(t *testing.T, workload, db, level string, want, never []string) {
	t.Helper()
	var seen [][]string
	for range anomalyTries {
		code, out, r := anomalyRun(t, workload, db, level)
		c := classes(r)
		seen = append(seen, c)
		if code != exitcode.OK || slices.Contains(c, "VIOLATION") || !strings.Contains(out, "invariants: OK") {
			t.Fatalf("%s at %s: exit %d, classes %v: want what the level allows reported, exit 0\n%s", workload, level, code, c, out)
		}
		for _, n := range never {
			if slices.Contains(c, n) {
				t.Fatalf("%s at %s found %s, which the level prevents\n%s", workload, level, n, out)
			}
		}
		for _, w := range want {
			if slices.Contains(c, w) {
				if !strings.Contains(out, "anomalies: ") || !strings.Contains(out, "(allowed by ") || !strings.Contains(out, "allowed   "+w+" ") {
					t.Errorf("%s at %s: the output does not report %s as allowed, with its example\n%s", workload, level, w, out)
				}
				return
			}
		}
	}
	t.Fatalf("%s at %s: none of %v in %d runs (classes found: %v)", workload, level, want, anomalyTries, seen)
}

// TestListAppendOnPostgres: list-append at high contention on PostgreSQL
// (the package's shared cluster). At SERIALIZABLE the history shows
// nothing and the serialization failures are counted (--max-tries 1: each
// is an error of its class); at REPEATABLE READ (snapshot isolation) it
// shows write skew, G2-item, and never a lost update; at READ COMMITTED
// lost updates or read skew (G-single); all of these reported as allowed,
// exit 0. Then the SERIALIZABLE run's saved history, checked again by
// check --history, shows none; with one committed append dropped from a
// read (a planted engine that broke its promise) it is a violation, exit 3.
func TestListAppendOnPostgres(t *testing.T) {
	db := testutil.SharedPostgres(t)
	// Sixteen clients on four keys deadlock now and then, and PostgreSQL
	// looks for a deadlock only after deadlock_timeout (1 s by default): a
	// cycle among the first transactions held a 2 s window with nothing
	// committed (exit 1, "no txn succeeded") on a loaded CI runner. The
	// test's database looks after 50 ms, so the window's length, not the
	// machine's pace, bounds what a deadlock costs.
	testutil.Exec(t, db, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = %L', current_database(), '50ms'); END $$")
	hist := filepath.Join(t.TempDir(), "ser.hist")
	var failures int64
	var h *history.History
	dropped := false
	for range anomalyTries {
		code, out, r := anomalyRun(t, "list-append", db, "serializable", "--max-tries", "1", "--history", hist)
		if code != exitcode.OK || len(r.Invariants.Anomalies.Found) > 0 || !strings.Contains(out, "anomalies: none in ") {
			t.Fatalf("serializable: exit %d, classes %v: want none, exit 0\n%s", code, classes(r), out)
		}
		failures = r.OpOf("txn", result.KindTxn).Errors["serialization"]
		var err error
		if h, err = history.Load(hist); err != nil {
			t.Fatal(err)
		}
		if dropped = dropAppend(h); dropped && failures > 0 {
			break
		}
	}
	if failures == 0 {
		t.Errorf("serializable: no serialization failure counted in %d runs", anomalyTries)
	}
	findAllowed(t, "list-append", db, "repeatable-read", []string{"G2-item"}, []string{"lost-update"})
	findAllowed(t, "list-append", db, "read-committed", []string{"lost-update", "G-single"}, nil)

	check := func(file string) (int, string) {
		code, stdout, stderr := clitest.Run("check", "--history", file, "--isolation", "serializable", "--engine", "postgresql")
		return code, stdout + stderr
	}
	if code, out := check(hist); code != exitcode.OK || !strings.Contains(out, "anomalies: none in ") {
		t.Fatalf("check --history of the serializable run: exit %d, want 0 and none\n%s", code, out)
	}
	if !dropped {
		t.Fatalf("no serializable history in %d runs had two committed reads of a list to drop an append from", anomalyTries)
	}
	planted := filepath.Join(t.TempDir(), "dropped.hist")
	f, err := os.Create(planted)
	if err != nil {
		t.Fatal(err)
	}
	if err := history.Save(f, h); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out := check(planted)
	if code != exitcode.Invariants || !strings.Contains(out, "VIOLATION") || !strings.Contains(out, "VIOLATE PostgreSQL's serializable") {
		t.Fatalf("check --history of the history with a dropped append: exit %d, want %d (a violation of serializable)\n%s", code, exitcode.Invariants, out)
	}
}

// dropAppend drops the first value of a committed list read of two
// values or more whose key another committed read shows too (every read
// of a list begins with its first append): what an engine that lost a
// committed write from a snapshot would return.
func dropAppend(h *history.History) bool {
	reads := map[int64]int{} // committed non-empty reads of each key
	for i := range h.Txns {
		for _, o := range h.TxnOps(i) {
			if h.Txns[i].Outcome == history.OK && o.Kind == history.Read && o.Len > 0 {
				reads[o.Key]++
			}
		}
	}
	for i := range h.Txns {
		if h.Txns[i].Outcome != history.OK {
			continue
		}
		for j, o := range h.TxnOps(i) {
			if o.Kind == history.Read && o.Len >= 2 && reads[o.Key] >= 2 {
				op := &h.Ops[int(h.Txns[i].Off)+j]
				op.Off++
				op.Len--
				compact(h)
				return true
			}
		}
	}
	return false
}

// compact rewrites h's list values so that each read's are its own and
// no value is left over, as a saved history holds them.
func compact(h *history.History) {
	var vals []int64
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == history.Read && h.Model == history.ListAppend {
			l := h.List(op)
			op.Off = uint32(len(vals))
			vals = append(vals, l...)
		}
	}
	h.Vals = vals
}

// rwRegisterLostUpdates: rw-register on MariaDB at REPEATABLE READ, whose
// writes see the latest row though its reads come from a snapshot: two
// transactions read one value and both write the key, a lost update,
// reported as allowed (MariaDB's repeatable read promises no more than
// read committed), exit 0.
func rwRegisterLostUpdates(t *testing.T, url string) {
	findAllowed(t, "rw-register", url, "repeatable-read", []string{"lost-update"}, nil)
}
