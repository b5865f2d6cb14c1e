package target

import (
	"strings"
	"testing"
)

// TestParseIsolation: --isolation takes its own spelling and SQL's,
// MySQL's and PostgreSQL's (what the servers report as their default), and
// refuses anything else naming the four.
func TestParseIsolation(t *testing.T) {
	for in, want := range map[string]Isolation{
		"serializable": Serializable, "read-committed": ReadCommitted, "READ COMMITTED": ReadCommitted,
		"REPEATABLE-READ": RepeatableRead, "repeatable read": RepeatableRead, "Read-Uncommitted": ReadUncommitted,
	} {
		if got, err := ParseIsolation(in); err != nil || got != want {
			t.Errorf("ParseIsolation(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "snapshot", "read", "serializable-ish"} {
		if _, err := ParseIsolation(in); err == nil || !strings.Contains(err.Error(), "choose read-uncommitted, read-committed, repeatable-read or serializable") {
			t.Errorf("ParseIsolation(%q): %v, want a refusal naming the levels", in, err)
		}
	}
	if got := RepeatableRead.SQL(); got != "REPEATABLE READ" {
		t.Errorf("SQL() = %q", got)
	}
}

// TestCheckIsolation: each engine takes the levels it keeps and refuses
// the others by name: SQLite all but serializable, PostgreSQL
// read-uncommitted (run as read committed); MariaDB takes all four; the
// server's default is always taken.
func TestCheckIsolation(t *testing.T) {
	for _, c := range []struct {
		kind SpecKind
		l    Isolation
		want string // "" taken
	}{
		{SQLiteTemp, Serializable, ""},
		{SQLiteFile, ReadCommitted, "SQLite runs every transaction SERIALIZABLE"},
		{SQLiteTemp, ReadUncommitted, "SQLite runs every transaction SERIALIZABLE"},
		{TempPostgres, RepeatableRead, ""},
		{ServerURL, ReadUncommitted, "PostgreSQL has no such level of its own; choose read-committed, repeatable-read, serializable"},
		{TempMariaDB, ReadUncommitted, ""},
		{MySQLURL, Serializable, ""},
		{SQLiteTemp, DefaultIsolation, ""},
	} {
		err := CheckIsolation(c.kind, c.l)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckIsolation(%v, %q) = %v, want %q", c.kind, c.l, err, c.want)
		}
	}
}
