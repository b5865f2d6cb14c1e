package job

import (
	"context"
	"sync"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
)

// openDB opens the database of s for n clients, failing the test on an
// error, and closes it when the test ends.
func openDB(t testing.TB, s Spec, n int) *Database {
	t.Helper()
	db, err := Open(context.Background(), s, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// runJob runs s on db, failing the test on Run's error.
func runJob(t testing.TB, s Spec, db *Database) *result.Result {
	t.Helper()
	r, err := Run(context.Background(), s, db)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// atFirstTick makes the run of s call f once, at its first progress tick.
func atFirstTick(s *Spec, f func()) {
	var once sync.Once
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnTick: func(result.Interval) { once.Do(f) }}}
}
