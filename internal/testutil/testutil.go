// Package testutil holds what the integration tests of several packages
// share: a throwaway PostgreSQL through the project's own localdb.
package testutil

import (
	"context"
	"os"
	"testing"

	"github.com/txnbench/txnbench/internal/localdb"
)

// NeedPostgres skips the test when PostgreSQL's binaries are missing,
// unless CI is set: there a missing binary is a failure.
func NeedPostgres(t testing.TB) {
	t.Helper()
	if _, err := localdb.FindBinDir(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs PostgreSQL: %v", err)
		}
		t.Skipf("PostgreSQL binaries missing: %v", err)
	}
}

// Postgres starts a throwaway cluster for the test and stops it at the end.
func Postgres(t testing.TB, conf ...string) *localdb.Cluster {
	t.Helper()
	NeedPostgres(t)
	c, err := localdb.Start(context.Background(), localdb.Options{Conf: conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the cluster: %v", err)
		}
	})
	return c
}

// NeedPgBouncer skips the test when PgBouncer is missing, unless CI is set.
func NeedPgBouncer(t testing.TB) {
	t.Helper()
	NeedPostgres(t)
	if _, err := localdb.FindPgBouncer(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs PgBouncer: %v", err)
		}
		t.Skipf("PgBouncer missing: %v", err)
	}
}
