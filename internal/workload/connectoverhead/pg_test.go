package connectoverhead

import (
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPostgres runs every query kind on a throwaway PostgreSQL cluster.
func TestPostgres(t *testing.T) {
	cl := testutil.Postgres(t)
	tg := testutil.Open(t, cl.URL())
	if !tg.Dialect().Caps.ArrayParams {
		t.Fatalf("PostgreSQL without array parameters: %+v", tg.Dialect())
	}
	runAllKinds(t, tg)
}
