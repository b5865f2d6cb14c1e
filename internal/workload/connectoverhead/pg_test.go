package connectoverhead

import (
	"context"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPostgres runs every query kind on a throwaway PostgreSQL cluster.
func TestPostgres(t *testing.T) {
	cl := testutil.Postgres(t)
	tg, err := target.OpenURL(context.Background(), cl.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if !tg.Dialect().Caps.ArrayParams {
		t.Fatalf("PostgreSQL without array parameters: %+v", tg.Dialect())
	}
	runAllKinds(t, tg)
}
