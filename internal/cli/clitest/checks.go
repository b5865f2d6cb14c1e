package clitest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// ReadOnlyChecks runs tpcb-like on db with a --check file whose second
// check deletes pgbench_history: the check stage fails saying it writes
// (checks run in a read-only transaction), the history is still there, and
// the run exits 1 (a broken check is no data loss: never VIOLATED, 3). A check of SELECT; fails the check stage with one line
// naming the file, the line and the statement.
func ReadOnlyChecks(t testing.TB, db string) {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "wipe.sql", "-- name: history is there\nSELECT count(*) > 0 FROM pgbench_history;\n-- wipe it\nDELETE FROM pgbench_history;\n")
	testutil.WriteFile(t, dir, "empty.sql", "-- nothing selected\nSELECT;\n")
	run := func(check string) (int, string, string) {
		return Run("run", "script", "--db", db, "-b", "tpcb-like", "--iterations", "20", "--clients", "1",
			"--progress", "1s", "--telemetry", "off", "--check", filepath.Join(dir, check))
	}
	code, stdout, stderr := run("wipe.sql")
	if code != exitcode.Failure || !strings.Contains(stderr, filepath.Join(dir, "wipe.sql")+":4: wipe it: it writes, and a check may only read: checks run in a read-only transaction") ||
		strings.Contains(stdout, "VIOLATED") {
		t.Errorf("a check that deletes: exit %d, want %d (a check that cannot run, not lost data) naming the check as a write\n%s\n%s", code, exitcode.Failure, stdout, stderr)
	}
	_, c, done := testutil.Conn(t, db)
	defer done()
	if n := testutil.CountRows(c, "pgbench_history"); n < 20 {
		t.Errorf("pgbench_history after the check: %d rows, want the run's 20 kept", n)
	}
	code, stdout, stderr = run("empty.sql")
	line := filepath.Join(dir, "empty.sql") + ":2: nothing selected: SELECT;: "
	if code != exitcode.Failure || !strings.Contains(stderr, line) || strings.Contains(stderr, "destination") || strings.Contains(stderr, "field descriptions") {
		t.Errorf("a check of SELECT;: exit %d, want %d and one line starting %q\n%s\n%s", code, exitcode.Failure, line, stdout, stderr)
	}
}
