package job

import (
	"context"
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
