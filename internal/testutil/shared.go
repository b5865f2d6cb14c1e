package testutil

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/txnbench/txnbench/internal/localdb"
)

// shared is the throwaway cluster the tests of one package share
// (SharedPostgres): started by the first test that asks, stopped by Main.
var shared struct {
	mu   sync.Mutex
	c    *localdb.Cluster
	err  error
	dbs  int  // databases made so far
	main bool // Main runs the tests, so it stops the cluster
}

// SharedPostgres returns the superuser's URL of a new, empty database of
// its own on a throwaway cluster the tests of the package share: for a
// test that only needs a database (its tables, its sessions), not a
// server of its own to configure, restart or count cluster-wide. A test
// that looks at the server's activity filters it by its database
// (current_database()). Starting a cluster (initdb) costs about a CPU
// second; a database, a few milliseconds. The package's TestMain must
// run its tests through Main, which stops the cluster.
func SharedPostgres(t testing.TB) string {
	t.Helper()
	NeedPostgres(t)
	shared.mu.Lock()
	if !shared.main {
		shared.mu.Unlock()
		t.Fatal("SharedPostgres needs the package's TestMain to run its tests through testutil.Main, which stops the cluster")
	}
	if shared.c == nil && shared.err == nil {
		shared.c, shared.err = localdb.Start(context.Background(), localdb.Options{})
	}
	shared.dbs++
	c, err, name := shared.c, shared.err, fmt.Sprintf("t%d", shared.dbs)
	shared.mu.Unlock()
	if err != nil {
		t.Fatalf("the package's shared cluster: %v", err)
	}
	Exec(t, c.URL(), "CREATE DATABASE "+name)
	u, err := url.Parse(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Main runs the tests of m and then stops the package's shared cluster
// (SharedPostgres), returning the exit code for os.Exit: a TestMain's
// body is os.Exit(testutil.Main(m)).
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.main = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.c != nil {
		if err := shared.c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the shared cluster: %v\n", err)
			code = max(code, 1)
		}
	}
	return code
}

// SharedPostgresCopy returns the URL of a new database on the package's
// shared cluster (SharedPostgres), a copy of the database at template (a
// URL SharedPostgres returned, which no session may be using): tests that
// need the same tables fill them once and copy the database (a file copy
// in the server) instead of filling each their own.
func SharedPostgresCopy(t testing.TB, template string) string {
	t.Helper()
	u, err := url.Parse(template)
	if err != nil {
		t.Fatal(err)
	}
	from := strings.TrimPrefix(u.Path, "/")
	shared.mu.Lock()
	c := shared.c
	shared.dbs++
	name := fmt.Sprintf("t%d", shared.dbs)
	shared.mu.Unlock()
	if c == nil {
		t.Fatal("SharedPostgresCopy: no shared cluster: template is not SharedPostgres's")
	}
	Exec(t, c.URL(), fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, from))
	u.Path = "/" + name
	return u.String()
}

// DatabaseURL is u with its database replaced by name.
func DatabaseURL(t testing.TB, u, name string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.Path = "/" + name
	return p.String()
}
