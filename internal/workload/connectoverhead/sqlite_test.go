package connectoverhead

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

func TestSQLite(t *testing.T) {
	runAllKinds(t, testutil.SQLite(t))
}

// TestSQLiteCheckDetectsDamage damages the dataset after Start and expects
// Check to name exactly the invariants that broke.
func TestSQLiteCheckDetectsDamage(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		sql    string
		failed []string
	}{
		{"delete an item", "DELETE FROM co_order_items WHERE id = 7",
			[]string{"order items intact", "order totals match their items"}},
		{"change a price", "UPDATE co_order_items SET price_cents = price_cents + 1 WHERE id = 7",
			[]string{"order items intact", "order totals match their items"}},
		{"change an order's total", "UPDATE co_orders SET total_cents = total_cents - 1 WHERE id = 3",
			[]string{"orders intact", "order totals match their items"}},
		{"add a user", "INSERT INTO co_users (id, email, name, region, status, created_at) VALUES (100000, 'x@example.com', 'X', 'region-1', 'active', '2025-01-01T00:00:00.000Z')",
			[]string{"users intact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := testutil.SQLite(t)
			conn := testutil.Session(t, tg)
			w, _ := initWorkload(t, tg, conn, true, "--rows", "50")
			if err := w.Start(ctx, conn); err != nil {
				t.Fatal(err)
			}
			checkOK(t, w, conn)
			if n, err := conn.Exec(ctx, tt.sql); err != nil || n != 1 {
				t.Fatalf("%s: %d rows, %v", tt.sql, n, err)
			}
			testutil.CheckFails(t, w, conn, tt.failed)
		})
	}
}

// TestSQLiteStartNeedsUsers: a point or complex run on an empty dataset
// fails at Start with a message naming the fix; select1 needs no data.
func TestSQLiteStartNeedsUsers(t *testing.T) {
	ctx := context.Background()
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	w, _ := initWorkload(t, tg, conn, true, "--rows", "0", "--query", "select1")
	if err := w.Start(ctx, conn); err != nil {
		t.Fatalf("select1 on no data: %v", err)
	}
	checkOK(t, w, conn)
	for _, k := range []string{kindPoint, kindComplex} {
		w, _ := initWorkload(t, tg, conn, false, "--rows", "5", "--query", k)
		err := w.Start(ctx, conn)
		if err == nil || !strings.Contains(err.Error(), "--rows") {
			t.Errorf("%s on no users: %v", k, err)
		}
	}
}

// TestSQLiteSmallDataset: with fewer users than a region holds, there is
// one region and every query still finds its rows.
func TestSQLiteSmallDataset(t *testing.T) {
	ctx := context.Background()
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	w, created := initWorkload(t, tg, conn, true, "--rows", "3", "--query", "complex")
	if !created {
		t.Fatal("not created")
	}
	if err := w.Start(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if len(w.regionArgs) != 1 || w.minID != 1 || w.maxID != 3 {
		t.Fatalf("regions %v, ids %d..%d", w.regionArgs, w.minID, w.maxID)
	}
	cl := w.NewClient(0, rand.New(rand.NewPCG(1, 2))).(*client)
	cl.NextCycle()
	if err := cl.Ops()[0].Run(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if want := generate(1, 3).top["region-1"]; !slices.Equal(cl.top, want) {
		t.Errorf("got %+v, want %+v", cl.top, want)
	}
}
