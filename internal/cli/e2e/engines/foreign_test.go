package engines

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// foreignCase is a workload's init over a table of one of its names that
// another tool made (no txnbench mark in txnbench_meta).
type foreignCase struct {
	name  string
	table string   // the planted table, one of the workload's names
	args  []string // "init WORKLOAD ..." on tiny data
	// used: a standard benchmark's complete set is used as found (as its
	// own tool would), not refused; it is never dropped either.
	used bool
}

var foreignCases = []foreignCase{
	{name: "train-events", table: "events_jsonb", args: []string{"init", "train-events", "--rows", "10"}},
	{name: "workflow", table: "workflow_instances", args: []string{"init", "workflow"}},
	{name: "connect-overhead", table: "co_users", args: []string{"init", "connect-overhead", "--rows", "10"}},
	{name: "tpcc", table: "warehouse", args: []string{"init", "tpcc", "--warehouses", "1", "--items", "1000", "--customers-per-district", "30"}},
	{name: "pgbench", table: "pgbench_history", args: []string{"init", "script", "-b", "tpcb-like"}},
	{name: "sysbench", table: "sbtest1", args: []string{"init", "script", "-b", "oltp-read-write", "--tables", "2", "--table-size", "10"}},
	{name: "ycsb", table: "usertable", args: []string{"init", "script", "-b", "ycsb-a", "--record-count", "10"}, used: true},
}

// plantForeign makes table as another tool would (its key column named as
// txnbench's YCSB and sysbench tables name theirs, so that those are used
// as found), with one row of its own.
func plantForeign(t *testing.T, url, table string) {
	key := "id"
	if table == "usertable" {
		key = "ycsb_key"
	}
	testutil.Exec(t, url, fmt.Sprintf("CREATE TABLE %s (%s BIGINT, note VARCHAR(20))", table, key),
		fmt.Sprintf("INSERT INTO %s (%s, note) VALUES (1, 'theirs')", table, key))
}

// stillTheirs fails the test unless table still holds the planted row.
func stillTheirs(t *testing.T, url, table string) {
	t.Helper()
	_, c, done := testutil.Conn(t, url)
	defer done()
	var note string
	if err := target.QueryRow(context.Background(), c, "SELECT note FROM "+table, nil, &note); err != nil || note != "theirs" {
		t.Errorf("%s after the run: %q, %v; want the planted row kept", table, note, err)
	}
}

// refusesForeignTables runs each case's init on a new database from newDB
// holding the planted table: refused with exit 2 naming the table and
// --reinit (or, for a standard benchmark's table, used), and the table
// kept. With reinit, --reinit then takes the table, saying it drops it.
func refusesForeignTables(t *testing.T, newDB func(t *testing.T) string, reinit bool) {
	for _, fc := range foreignCases {
		t.Run(fc.name, func(t *testing.T) {
			url := newDB(t)
			plantForeign(t, url, fc.table)
			args := append(append([]string{}, fc.args...), "--db", url)
			code, _, stderr := clitest.Run(args...)
			switch {
			case fc.used:
				if !strings.Contains(stderr, fc.table+" has 1 loaded rows: using them") {
					t.Errorf("%v on a complete %s: exit %d, want it used as found:\n%s", fc.args, fc.table, code, stderr)
				}
			case code != exitcode.Usage || !strings.Contains(refusal(stderr), ": "+fc.table) || !strings.Contains(refusal(stderr), "--reinit drops them"):
				t.Errorf("%v over another tool's %s: exit %d, want %d and one line naming it and --reinit:\n%s", fc.args, fc.table, code, exitcode.Usage, stderr)
			}
			stillTheirs(t, url, fc.table)
			if !reinit {
				return
			}
			code, _, stderr = clitest.Run(append(args, "--reinit")...)
			if code != exitcode.OK || !strings.Contains(stderr, "--reinit: dropping the ") || !strings.Contains(stderr, fc.table) {
				t.Errorf("%v --reinit: exit %d, want it to say it drops %s:\n%s", fc.args, code, fc.table, stderr)
			}
		})
	}
}

// TestForeignTablesAreKept: on SQLite and PostgreSQL (MariaDB: TestMariaDB)
// no workload drops, or takes for its own, tables of its names that
// txnbench did not make; --reinit does, and says so.
func TestForeignTablesAreKept(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		refusesForeignTables(t, func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "f.db") }, true)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		refusesForeignTables(t, func(t *testing.T) string { return testutil.SharedPostgres(t) }, false)
	})
}

// refusal is the line of stderr refusing tables txnbench did not make.
func refusal(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "txnbench: ") && strings.Contains(l, "that txnbench did not make") {
			return l
		}
	}
	return ""
}

// mariaDBs makes a new database on the MariaDB server at url for each
// call.
func mariaDBs(url string) func(t *testing.T) string {
	var n atomic.Int64
	return func(t *testing.T) string {
		name := fmt.Sprintf("foreign%d", n.Add(1))
		testutil.Exec(t, url, "CREATE DATABASE "+name)
		return testutil.DatabaseURL(t, url, name)
	}
}

// TestEmptyStandardTableIsRefused: a standard benchmark's table that
// another tool made and left empty is used as found, so a run had every
// op pick a key from an empty range and ended exit 1 with "empty range
// given to random"; it is refused (exit 2) naming the table and the fix.
func TestEmptyStandardTableIsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ table, ddl, builtin string }{
		{"usertable", "CREATE TABLE usertable (ycsb_key BIGINT PRIMARY KEY, field0 TEXT)", "ycsb-a"},
		{"sbtest1", "CREATE TABLE sbtest1 (id BIGINT PRIMARY KEY, k BIGINT, c TEXT, pad TEXT)", "oltp-read-only"},
	} {
		t.Run(c.table, func(t *testing.T) {
			t.Parallel()
			url := "sqlite:" + filepath.Join(t.TempDir(), "e.db")
			testutil.Exec(t, url, c.ddl)
			code, _, stderr := clitest.Run("run", "script", "-b", c.builtin, "--db", url, "--duration", "1s")
			if code != exitcode.Usage || !strings.Contains(stderr, "txnbench: "+c.table+" is there without a row to read (made by another tool, empty): load it, or run with --reinit") {
				t.Errorf("-b %s on an empty %s: exit %d, want %d naming it and --reinit:\n%s", c.builtin, c.table, code, exitcode.Usage, stderr)
			}
		})
	}
}
