package job

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestOneParseOneTargetPerEndpoint: a whole run on --db temp-mariadb
// (open, init, the run with its telemetry, the check, close) reads no
// URL txnbench made with ParseSpec (the engine hands its endpoints over
// as target.Specs) and opens one Target per endpoint: the clients' (the
// load user's) and the telemetry's (the server's root). It parsed twice
// more (the load URL, the telemetry's root URL) before.
func TestOneParseOneTargetPerEndpoint(t *testing.T) {
	testutil.NeedMariaDB(t)
	s := spec(t, "temp-mariadb", runner.Config{Clients: 2, Iterations: 20})
	countOpens(t, 2, "the clients' and the telemetry's", func() {
		db, err := Open(context.Background(), s, s.Runner.Clients)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), s, db)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r.Invariants == nil || !r.Invariants.OK {
			t.Fatalf("invariants: %+v", r.Invariants)
		}
	})
}

// TestPooledThrowawayOpensOnce: a throwaway cluster behind txnbench's
// PgBouncer is opened once for its clients, through the pooler: Open
// opens the cluster as its superuser (to make the load role) and the
// clients' Target at PgBouncer, and no Target straight to the cluster as
// the load role that startPoolers would close again (it opened three).
func TestPooledThrowawayOpensOnce(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 2, Iterations: 10})
	s.DB.Via = viaPgBouncer(target.PgBouncer{Mode: "transaction", Size: 2})
	db := openOnce(t, s, "the clients' through PgBouncer")
	if db.poolers == nil || db.conn.Addr.Port != strconv.Itoa(db.poolers.Port()) {
		t.Errorf("the clients connect to %s, not to the PgBouncer", target.MaskURL(db.conn.URL))
	}
}

// TestPooledServerOpensOnce: the user's own server (--db URL) behind
// txnbench's PgBouncer is opened once, before the pooler starts (so that
// one that cannot be reached fails in its own words), and kept: Open
// opens it and the clients' Target at PgBouncer, and an invariant check
// that finds the pooler gone connects to the server through that first
// Target, opening none. startPoolers closed it, and the check opened the
// server again (3 opens).
func TestPooledServerOpensOnce(t *testing.T) {
	testutil.NeedPgBouncer(t)
	s := spec(t, testutil.SharedPostgres(t), runner.Config{Clients: 2, Iterations: 10})
	s.DB.Via = viaPgBouncer(target.PgBouncer{Mode: "transaction", Size: 2})
	countOpens(t, 2, "the server's, once, and the clients' through PgBouncer", func() {
		db := openDB(t, s, s.Runner.Clients)
		if db.poolers == nil || db.direct == nil {
			t.Fatalf("poolers %v, the server's own Target %v", db.poolers, db.direct)
		}
		if err := db.Poolers()[0].Kill(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		var r result.Result
		err := withCheckConn(context.Background(), s, db, nil, &r, func(ctx context.Context, c target.Conn) error {
			_, err := c.Exec(ctx, "SELECT 1")
			return err
		})
		if err != nil {
			t.Fatalf("the check with the pooler gone: %v", err)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "the invariant check connected to the server directly") {
			t.Errorf("notes %q", r.Notes)
		}
	})
}

// openOnce opens s's throwaway cluster as openDB does, and fails t unless
// Open parsed no spec and opened two Targets: the superuser's (to make
// the load role) and the clients' (at clients, the endpoint they reach).
func openOnce(t *testing.T, s Spec, clients string) (db *Database) {
	t.Helper()
	countOpens(t, 2, "the superuser's (the load role) and "+clients, func() { db = openDB(t, s, s.Runner.Clients) })
	return db
}

// countOpens runs f and fails t unless it parsed no spec with ParseSpec
// (every URL txnbench made travels as a target.Spec) and opened want
// Targets, which says which.
func countOpens(t *testing.T, want int64, which string, f func()) {
	t.Helper()
	parses0, opens0 := target.Counts()
	f()
	parses, opens := target.Counts()
	if n := parses - parses0; n != 0 {
		t.Errorf("parsed %d specs with ParseSpec, want 0: every URL txnbench made should travel as a target.Spec", n)
	}
	if n := opens - opens0; n != want {
		t.Errorf("opened %d Targets, want %d: %s", n, want, which)
	}
}
