package job

import (
	"context"
	"strconv"
	"testing"

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
	parses0, opens0 := target.Counts()
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
	parses, opens := target.Counts()
	if n := parses - parses0; n != 0 {
		t.Errorf("the run parsed %d specs with ParseSpec: every URL it made should travel as a target.Spec", n)
	}
	if n := opens - opens0; n != 2 {
		t.Errorf("the run opened %d Targets, want 2: the clients' and the telemetry's", n)
	}
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
	s.DB.Via = pgbouncer(target.PgBouncer{Mode: "transaction", Size: 2})
	db := openOnce(t, s, "the clients' through PgBouncer")
	if db.fleet == nil || db.conn.Addr.Port != strconv.Itoa(db.fleet.Port()) {
		t.Errorf("the clients connect to %s, not to the PgBouncer", target.MaskURL(db.conn.URL))
	}
}

// openOnce opens s's throwaway cluster as openDB does, and fails t unless
// Open parsed no spec and opened two Targets: the superuser's (to make
// the load role) and the clients' (at clients, the endpoint they reach).
func openOnce(t *testing.T, s Spec, clients string) *Database {
	t.Helper()
	parses0, opens0 := target.Counts()
	db := openDB(t, s, s.Runner.Clients)
	parses, opens := target.Counts()
	if n := parses - parses0; n != 0 {
		t.Errorf("Open parsed %d specs with ParseSpec, want 0", n)
	}
	if n := opens - opens0; n != 2 {
		t.Errorf("Open opened %d Targets, want 2: the superuser's (the load role) and %s", n, clients)
	}
	return db
}
