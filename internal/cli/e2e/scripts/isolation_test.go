package scripts

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// isolationRun runs the script in dir/run.sql with dir/check.sql as its
// --check on db, with args, and returns the result saved as JSON after
// asserting the run passed: every script transaction and the check read
// the level in force back through the run's own sessions and fail when
// it is not the one they were written for.
func isolationRun(t *testing.T, dir, db string, args ...string) *result.Result {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	all := append([]string{"run", "script", "--db", db, "-f", filepath.Join(dir, "run.sql"), "--check", filepath.Join(dir, "check.sql"),
		"--iterations", "12", "--clients", "2", "--progress", "1s", "--telemetry", "off", "--json", out}, args...)
	code, stdout, stderr := clitest.Run(all...)
	if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("%v: exit %d, want 0 with the level read back in every transaction and the check\n%s\n%s", args, code, stdout, stderr)
	}
	var r result.Result
	clitest.ReadJSON(t, out, &r)
	if header := "isolation " + result.IsolationText(r.Config.Isolation, r.Config.IsolationDefault) + ", seed"; !strings.Contains(stdout+stderr, header) {
		t.Errorf("%v: the header does not say %q\n%s", args, header, stderr)
	}
	return &r
}

// wantLevel fails t unless r's JSON says the run's isolation is level,
// taken as the engine's default (isDefault) or asked for; what names the case.
func wantLevel(t *testing.T, r *result.Result, what, level string, isDefault bool) {
	t.Helper()
	if r.Config.Isolation != level || r.Config.IsolationDefault != isDefault {
		t.Errorf("%s: the JSON says isolation %q (default %v), want %s (default %v)", what, r.Config.Isolation, r.Config.IsolationDefault, level, isDefault)
	}
}

// pgLevel is a script whose transaction (its own BEGIN, which through a
// pooler txnbench must begin at the level) and whose next statement on
// its own (which only a session setting reaches) fail with a division by
// zero unless the level is want, and a check (txnbench's own BEGIN) that
// fails unless it is.
func pgLevel(t *testing.T, want string, alone bool) string {
	dir := t.TempDir()
	is := fmt.Sprintf("SELECT 1/(current_setting('transaction_isolation') = '%s')::int;\n", want)
	script := "BEGIN;\n" + is + "END;\n"
	if alone {
		script += is
	}
	testutil.WriteFile(t, dir, "run.sql", script)
	testutil.WriteFile(t, dir, "check.sql", fmt.Sprintf("-- the level is %s\nSELECT current_setting('transaction_isolation') = '%s';\n", want, want))
	return dir
}

// TestIsolationHoldsInEverySession: --isolation is the level in force in
// the run's own sessions on PostgreSQL (the package's shared cluster)
// through every way clients connect: each session of its own, a session
// per transaction, a shared pool, a throwaway PgBouncer in transaction
// mode (where session settings are not kept: each transaction begins at
// the level) and a fleet of two behind HAProxy. The level is named in the
// header and the JSON; without --isolation they name the server's
// default, read from it.
func TestIsolationHoldsInEverySession(t *testing.T) {
	db := testutil.SharedPostgres(t)
	ser, rr := pgLevel(t, "serializable", true), pgLevel(t, "repeatable read", true)
	for _, c := range []struct {
		dir, level string
		args       []string
	}{
		{ser, "serializable", []string{"--conn", "session"}},
		{rr, "repeatable-read", []string{"--conn", "per-txn"}},
		{ser, "serializable", []string{"--conn", "pool", "--pool-max", "2"}},
	} {
		wantLevel(t, isolationRun(t, c.dir, db, append(c.args, "--isolation", c.level)...), fmt.Sprint(c.args), c.level, false)
	}
	testutil.NeedPgBouncer(t)
	// Through a pooler a statement on its own runs at the server's
	// default (docs/isolation.md): the script's transaction and the
	// check are what must hold.
	pooled := pgLevel(t, "serializable", false)
	isolationRun(t, pooled, db, "--via", "pgbouncer", "--pool-mode", "transaction", "--pgbouncer-pool-size", "1", "--isolation", "serializable")
	testutil.NeedHAProxy(t)
	isolationRun(t, pooled, db, "--via", "pgbouncer", "--poolers", "2", "--isolation", "serializable")

	def := pgLevel(t, "read committed", true)
	wantLevel(t, isolationRun(t, def, db), "no --isolation (the server's default)", "read-committed", true)
	code, stdout, stderr := clitest.Run("run", "script", "--db", db, "-f", filepath.Join(def, "run.sql"), "--iterations", "2", "--clients", "1", "--telemetry", "off")
	if code != exitcode.OK || !strings.Contains(stdout+stderr, "isolation read-committed (the database's default)") {
		t.Errorf("no --isolation: exit %d, want the header to name the server's default level\n%s\n%s", code, stdout, stderr)
	}
}

// TestIsolationOnMariaDBAndSQLite: on temp-mariadb --isolation
// read-committed is the level of the run's sessions (MariaDB's default is
// REPEATABLE READ), read back by the check; SQLite takes serializable,
// what all its transactions are, and says so when not asked.
func TestIsolationOnMariaDBAndSQLite(t *testing.T) {
	t.Run("mariadb", func(t *testing.T) {
		testutil.NeedMariaDB(t)
		dir := t.TempDir()
		testutil.WriteFile(t, dir, "run.sql", "BEGIN;\nSELECT @@tx_isolation;\nCOMMIT;\n")
		testutil.WriteFile(t, dir, "check.sql", "-- the level is read committed\nSELECT @@tx_isolation = 'READ-COMMITTED';\n")
		wantLevel(t, isolationRun(t, dir, "temp-mariadb", "--isolation", "read-committed"), "mariadb", "read-committed", false)
	})
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		testutil.WriteFile(t, dir, "run.sql", "BEGIN;\nSELECT 1;\nCOMMIT;\n")
		testutil.WriteFile(t, dir, "check.sql", "-- nothing\nSELECT 1 WHERE 0;\n")
		wantLevel(t, isolationRun(t, dir, "sqlite:", "--isolation", "serializable"), "asked", "serializable", false)
		wantLevel(t, isolationRun(t, dir, "sqlite:"), "not asked (SQLite's only level)", "serializable", true)
	})
}
