package engines

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
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
	code, stdout, stderr := clitest.Run(append(all, args...)...)
	if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
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
	t.Parallel()
	standardBuiltins(t, testutil.SharedPostgres(t), "2")
}

func standardBuiltins(t *testing.T, db, clients string) {
	names := pgscript.ExtraNames()
	if len(names) != 14 {
		t.Fatalf("builtins %v, want the 6 YCSB, YCSB-B's read and update, and 6 sysbench ones", names)
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
			// every one of oltp-insert's 30 transactions inserts a row
			if name == "oltp-insert" && !strings.Contains(out, "30 rows inserted, 30 inserts committed, 0 of unknown outcome") {
				t.Errorf("oltp-insert's inserts not counted:\n%s", out)
			}
		})
	}
}

// TestStandardRowCountCatchesDeletion: a script that deletes one loaded
// row of usertable (or sbtest1) during the run makes the row-count check
// fail, naming the table, and one that inserts a row no builtin
// committed fails the insert check; exit 3.
func TestStandardRowCountCatchesDeletion(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ builtin, plant, file, want string }{
		{"ycsb-c", "DELETE FROM usertable WHERE ycsb_key = 7;\n", "usertable", "FAIL row count and key range usertable has 299 loaded rows"},
		{"oltp-point-select", "DELETE FROM sbtest1 WHERE id = 7;\n", "sbtest1", "FAIL row count and key range sbtest1 has 199 loaded rows"},
		{"ycsb-c", "INSERT OR IGNORE INTO usertable SELECT 2199023255552, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = 1;\n",
			"extra", "FAIL inserted rows match commits 1 rows inserted, 0 inserts committed"},
	} {
		plant := filepath.Join(dir, tc.file+".sql")
		if err := os.WriteFile(plant, []byte(tc.plant), 0o644); err != nil {
			t.Fatal(err)
		}
		all := append([]string{"run", "script", "--db", "sqlite:" + filepath.Join(dir, tc.file+".db"),
			"--iterations", "20", "--clients", "1", "-b", tc.builtin, "-f", plant}, standardSizes...)
		code, stdout, stderr := clitest.Run(all...)
		if code != exitcode.Invariants || !strings.Contains(strings.Join(strings.Fields(stdout), " "), tc.want) {
			t.Errorf("%s: exit %d, want %d and %q\n%s\n%s", tc.file, code, exitcode.Invariants, tc.want, stdout, stderr)
		}
	}
}

// TestStandardInPgbench: `txnbench pgbench` runs them too, sized by -D,
// and ends with their check, counting the inserts.
func TestStandardInPgbench(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "pgb.db")
	code, stdout, stderr := clitest.Run("pgbench", "--db", db, "-n", "-b", "ycsb-d", "-b", "oltp-insert", "-D", "record_count=150", "-D", "table_size=50", "-t", "30", "-c", "1")
	if code != 0 || !strings.Contains(stdout, "invariants: OK") || !strings.Contains(stdout, "inserted rows match commits") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}
