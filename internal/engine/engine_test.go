package engine_test

import (
	"testing"

	"github.com/txnbench/txnbench/internal/engine"
	_ "github.com/txnbench/txnbench/internal/engine/engines"
	"github.com/txnbench/txnbench/internal/target"
)

// TestEnginesOwnTheirForms: every --db form is owned by a registered
// engine, and the questions callers ask have one answer per form.
func TestEnginesOwnTheirForms(t *testing.T) {
	for _, c := range []struct {
		db                          string
		engine                      string
		remote, throwaway, embedded bool
		pgbouncer, runTable         bool
	}{
		{"sqlite:", "sqlite", false, false, true, false, false},
		{"sqlite:/tmp/x.db", "sqlite", false, false, true, false, false},
		{"temp-postgres", "postgres", false, true, false, true, true},
		{"temp-postgres@17", "postgres", false, true, false, true, true},
		{"postgres://u@h/db", "postgres", true, false, false, true, true},
		{"temp-mariadb", "mariadb", false, true, false, false, false},
		{"mysql://u:p@h/db", "mariadb", true, false, false, false, false},
	} {
		sp, err := target.ParseSpec(c.db)
		if err != nil {
			t.Fatal(err)
		}
		e := engine.Of(sp)
		if e.Name() != c.engine || sp.Remote() != c.remote || sp.Throwaway() != c.throwaway || sp.Embedded() != c.embedded ||
			e.Caps().PgBouncer != c.pgbouncer || e.Caps().RunTable != c.runTable {
			t.Errorf("--db %s: engine %s remote %v throwaway %v embedded %v caps %+v, want %+v", c.db, e.Name(), sp.Remote(), sp.Throwaway(), sp.Embedded(), e.Caps(), c)
		}
	}
}
