package target_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestSQLPoolDiscardReplacesSession holds the drivers on database/sql
// to target.Discard's contract through their one adapter (SQLConn and
// SQLPool): a discarded pooled session is disconnected, and the next
// acquire gets a new one, counted. SQLite's own copy of the adapter
// closed it back into the pool, so the next client got the same session
// (its TEMP table still there) and the pool counted one session.
func TestSQLPoolDiscardReplacesSession(t *testing.T) {
	ctx := context.Background()
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "p.db"))
	p, err := tg.OpenPool(ctx, target.PoolConfig{Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TEMP TABLE mine (x INTEGER)"); err != nil { // the session's own
		t.Fatal(err)
	}
	target.Discard(c)
	c2, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n int
	if err := target.QueryRow(ctx, c2, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'mine'", nil, &n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("the session acquired after a Discard is the discarded one (its TEMP table is there): Discard gave it back to the pool")
	}
	if s := p.Stats(); s.NewConns != 2 || s.Destroyed != 1 || s.Acquires != 2 {
		t.Errorf("pool stats %+v: want 2 sessions opened, 1 destroyed, 2 acquires", s)
	}
}

// TestSQLConnRollbackAfterCancel: a transaction whose work was cancelled
// is still rolled back (Ending), on SQLite as on MySQL, through the one
// adapter: its write lock is free for the next writer at once (no busy
// timeout to wait it out) and its row gone.
func TestSQLConnRollbackAfterCancel(t *testing.T) {
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "r.db"))
	a, b := connectTo(t, tg), connectTo(t, tg)
	bg := context.Background()
	if _, err := a.Exec(bg, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	if err := a.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, "INSERT INTO t VALUES ($1)", 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := a.Rollback(ctx); err != nil {
		t.Fatalf("Rollback on a cancelled context: %v", err)
	}
	if a.(interface{ InTransaction() bool }).InTransaction() {
		t.Error("still in a transaction after Rollback")
	}
	if _, err := b.Exec(bg, "PRAGMA busy_timeout = 0"); err != nil {
		t.Fatal(err)
	}
	if err := b.Begin(bg); err != nil { // BEGIN IMMEDIATE: the write lock
		t.Fatalf("the next writer: %v", err)
	}
	defer b.Rollback(bg)
	if n := countRows(t, b, "t"); n != 0 {
		t.Errorf("%d rows after the rollback, want 0", n)
	}
}
