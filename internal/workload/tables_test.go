package workload_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestSchemaPrepare holds the one decision every workload's Init makes on
// the tables it finds: none means create; all of them with txnbench's mark
// means use them; some of them with the mark (an interrupted load) means
// make them anew; tables of its names without the mark (another tool's)
// are refused naming them, unless --reinit, which says what it drops; a
// standard benchmark's complete set is used as found. Any other error of
// a probe is returned, never taken as leave to create the tables.
func TestSchemaPrepare(t *testing.T) {
	ctx := context.Background()
	c := testutil.Session(t, testutil.SQLite(t))
	var said []string
	o := workload.InitOptions{Progress: func(s string) { said = append(said, s) }}
	s := workload.Schema{Data: "test", What: "test tables", Names: []string{"a", "b"}}
	exec := func(q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	prepare := func(s workload.Schema, o workload.InitOptions) (bool, error) {
		said = nil
		return s.Prepare(ctx, c, o)
	}

	if create, err := prepare(s, o); !create || err != nil {
		t.Fatalf("no tables: create %v, %v; want true", create, err)
	}
	exec("CREATE TABLE a (x int)") // the load is interrupted here
	if create, err := prepare(s, o); !create || err != nil || len(said) != 1 || !strings.Contains(said[0], "only a of them") {
		t.Fatalf("txnbench's own partial tables: create %v, %v, said %q; want them made anew, saying so", create, err, said)
	}
	exec("CREATE TABLE b (x int)")
	if create, err := prepare(s, o); create || err != nil {
		t.Fatalf("every table, marked: create %v, %v; want them used", create, err)
	}

	// Without the mark they are someone else's: refused, all or some.
	exec("DELETE FROM txnbench_meta")
	for _, drop := range []string{"", "DROP TABLE b"} {
		if drop != "" {
			exec(drop)
		}
		_, err := prepare(s, o)
		if !errors.Is(err, workload.ErrNotOurs) || !strings.Contains(err.Error(), "test tables that txnbench did not make") || !strings.Contains(err.Error(), "--reinit") {
			t.Fatalf("unmarked tables (%q): %v; want them refused naming --reinit", drop, err)
		}
		if drop == "" && !strings.Contains(err.Error(), ": a, b: ") || drop != "" && !strings.Contains(err.Error(), ": a: ") {
			t.Errorf("unmarked tables (%q): %v; want the ones found named", drop, err)
		}
	}
	if n := testutil.CountRows(c, "a"); n != 0 {
		t.Fatalf("table a after the refusals: %d rows", n)
	}
	exec("CREATE TABLE b (x int)")

	// A standard benchmark's complete set is used as found, a partial one
	// refused.
	std := s
	std.Standard = true
	if create, err := prepare(std, o); create || err != nil {
		t.Errorf("a standard benchmark's unmarked tables: create %v, %v; want them used", create, err)
	}
	exec("DROP TABLE b")
	if _, err := prepare(std, o); !errors.Is(err, workload.ErrNotOurs) {
		t.Errorf("a standard benchmark's partial unmarked tables: %v; want them refused", err)
	}

	// --reinit takes them, saying which it drops.
	fresh := o
	fresh.Fresh = true
	if create, err := prepare(s, fresh); !create || err != nil || len(said) != 1 || said[0] != "--reinit: dropping the test tables a" {
		t.Errorf("--reinit: create %v, %v, said %q", create, err, said)
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if create, err := s.Prepare(canceled, c, o); create || err == nil || !strings.Contains(err.Error(), "looking for the test tables") || target.IsUndefinedTable(err) {
		t.Errorf("a canceled probe: %v, %v; want its error", create, err)
	}
	if err := workload.CreateTables(ctx, c, nil, []string{"CREATE TABLE a (x int)"}, "test tables"); err == nil || !strings.Contains(err.Error(), "creating the test tables") {
		t.Errorf("creating a table that exists: %v", err)
	}
}
