package job

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestViaURLNetworkOpensOnce: a pooler given by URL (--via URL) behind
// --network is opened once, through the shaped proxy its clients reach:
// Open parses no spec and opens one Target. It opened the pooler itself
// first and then again through the proxy, closing the first (two Targets
// for one endpoint). Not parallel: target.Counts counts the whole
// process's opens, and a parallel test's would be added (CI saw 2).
func TestViaURLNetworkOpensOnce(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	b := userPgBouncer(t, dbURL)
	s := spec(t, dbURL, runner.Config{Clients: 2, Iterations: 10})
	s.DB.Via = mustVia(t, b.URL(strings.TrimPrefix(mustURL(t, dbURL).Path, "/")))
	s.Network = &faultproxy.Shape{}
	var db *Database
	countOpens(t, 1, "the clients', through the --network proxy in front of the pooler", func() { db = openDB(t, s, s.Runner.Clients) })
	if db.shaper == nil || db.conn.Addr.Port != db.addr.Port || db.addr.Port == s.DB.Via.Addr.Port {
		t.Errorf("the clients connect to %s (shaper %v), not through the --network proxy", db.conn.Addr.TCP(), db.shaper)
	}
	r := runJob(t, s, db)
	checkShape(t, r, 10)
}

// userPgBouncer is a PgBouncer of the test's own (as a user's pooler, not
// txnbench's) in front of the server of dbURL, stopped when the test ends.
func userPgBouncer(t *testing.T, dbURL string) *localdb.Bouncer {
	t.Helper()
	testutil.NeedPgBouncer(t)
	b, err := localdb.StartPgBouncer(context.Background(), backendOf(t, dbURL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop() })
	return b
}

// backendOf is a PgBouncer's options for logging in to the server of
// dbURL as its user.
func backendOf(t *testing.T, dbURL string) localdb.BouncerOptions {
	t.Helper()
	u := mustURL(t, dbURL)
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	return localdb.BouncerOptions{BackendPort: port, BackendUser: u.User.Username(), BackendPassword: password}
}

// mustURL is u parsed, failing the test when it is not a URL.
func mustURL(t *testing.T, u string) *url.URL {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
