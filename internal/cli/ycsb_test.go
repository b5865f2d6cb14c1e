package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pgscript "github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/testutil"
)

// standardSizes keep the YCSB and sysbench tables tiny.
var standardSizes = []string{"--record-count", "300", "--tables", "2", "--table-size", "200"}

// runStandard runs one builtin of YCSB's or sysbench's for a few
// transactions and fails the test unless its check is OK.
func runStandard(t *testing.T, db string, clients string, args ...string) string {
	t.Helper()
	all := append([]string{"run", "script", "--db", db, "--iterations", "30", "--clients", clients}, standardSizes...)
	code, stdout, stderr := runMain(append(all, args...)...)
	if code != ExitOK || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
	}
	return stdout
}

// TestStandardBuiltinsSQLite: every YCSB and sysbench builtin loads its
// tables and runs on SQLite with its row-count and key-range check OK,
// and the inserting ones (ycsb-d, ycsb-e, oltp-insert) count their
// committed inserts in the check.
func TestStandardBuiltinsSQLite(t *testing.T) {
	// one client: SQLite has one writer, no busy errors to retry
	standardBuiltins(t, "sqlite:"+filepath.Join(t.TempDir(), "std.db"), "1")
}

// TestStandardBuiltinsPostgres: the same on one throwaway PostgreSQL
// server for all of them, with two clients.
func TestStandardBuiltinsPostgres(t *testing.T) {
	standardBuiltins(t, testutil.Postgres(t).URL(), "2")
}

func standardBuiltins(t *testing.T, db, clients string) {
	names := pgscript.ExtraNames()
	if len(names) != 12 {
		t.Fatalf("builtins %v, want the 6 YCSB and 6 sysbench ones", names)
	}
	inserts := map[string]bool{"ycsb-d": true, "ycsb-e": true, "oltp-insert": true}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			out := runStandard(t, db, clients, "-b", name)
			if !strings.Contains(out, "row count and key range") {
				t.Errorf("no row-count check:\n%s", out)
			}
			if inserts[name] != strings.Contains(out, "inserted rows match commits") {
				t.Errorf("insert check shown %v, want %v:\n%s", !inserts[name], inserts[name], out)
			}
		})
	}
}

// TestStandardRowCountCatchesDeletion: a script that deletes one loaded
// row of usertable (or sbtest1) during the run makes the row-count check
// fail, naming the table, with exit 3.
func TestStandardRowCountCatchesDeletion(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ builtin, del, table string }{
		{"ycsb-c", "DELETE FROM usertable WHERE ycsb_key = 7;\n", "usertable"},
		{"oltp-point-select", "DELETE FROM sbtest1 WHERE id = 7;\n", "sbtest1"},
	} {
		del := filepath.Join(dir, tc.table+".sql")
		if err := os.WriteFile(del, []byte(tc.del), 0o644); err != nil {
			t.Fatal(err)
		}
		all := append([]string{"run", "script", "--db", "sqlite:" + filepath.Join(dir, tc.table+".db"),
			"--iterations", "20", "--clients", "1", "-b", tc.builtin, "-f", del}, standardSizes...)
		code, stdout, stderr := runMain(all...)
		if code != ExitInvariants || !strings.Contains(stdout, "FAIL row count and key range") ||
			!strings.Contains(stdout, tc.table+" has 299 loaded rows") && !strings.Contains(stdout, tc.table+" has 199 loaded rows") {
			t.Errorf("%s: exit %d, want %d naming %s\n%s\n%s", tc.builtin, code, ExitInvariants, tc.table, stdout, stderr)
		}
	}
}

// TestStandardInPgbench: `txnbench pgbench` runs them too, sized by -D,
// and ends with their check, counting the inserts.
func TestStandardInPgbench(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "pgb.db")
	code, stdout, stderr := runMain("pgbench", "--db", db, "-n", "-b", "ycsb-d", "-b", "oltp-insert", "-D", "record_count=150", "-D", "table_size=50", "-t", "30", "-c", "1")
	if code != 0 || !strings.Contains(stdout, "invariants: OK") || !strings.Contains(stdout, "inserted rows match commits") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}
