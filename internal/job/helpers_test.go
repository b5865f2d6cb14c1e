package job

import (
	"context"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
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

// session opens a session to db, failing the test on an error, and closes
// it when the test ends (before db is closed).
func session(t testing.TB, db *Database) target.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}
