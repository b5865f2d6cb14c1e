package pgbenchscript

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestReadSQLFile: statements end at a ';' that ends a line, each named
// by the comment line before it ("name:" optional); a check without a
// name, an unfinished statement and a file over the cap are refused.
func TestReadSQLFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return testutil.WriteFile(t, dir, name, text) }
	got, err := readSQLFile(write("ok.sql", "-- ignored\n-- name: first one\nSELECT 1\n  = 1;\n\n-- second\nSELECT true;\n"), "--check", true)
	if err != nil || len(got) != 2 || got[0].name != "first one" || got[0].sql != "SELECT 1\n  = 1;" || got[1].name != "second" {
		t.Fatalf("got %+v, %v", got, err)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"noname.sql": {"SELECT 1;\n", "has no name"},
		"open.sql":   {"-- a\nSELECT 1\n", "does not end with ';'"},
		"empty.sql":  {"-- nothing\n", "no checks in it"},
		"big.sql":    {"-- big\nSELECT '" + strings.Repeat("x", maxSQLFile) + "';\n", "more than the 1 MiB txnbench reads"},
	} {
		if _, err := readSQLFile(write(name, tc.text), "--check", true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	if got, err := readSQLFile(write("setup.sql", "CREATE TABLE t (a int);\n"), "--setup", false); err != nil || len(got) != 1 {
		t.Errorf("--setup without names: %+v, %v", got, err)
	}
}
