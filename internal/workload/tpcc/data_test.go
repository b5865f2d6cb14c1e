package tpcc

import (
	"context"
	"errors"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// fingerprint sums what the load generated in every table, so two loads
// can be compared.
const fingerprint = "SELECT (SELECT count(*) + sum(i_im_id) + sum(length(i_data)) + sum(i_price * 100) FROM item)" +
	" + (SELECT count(*) + sum(s_quantity) + sum(length(s_data)) FROM stock)" +
	" + (SELECT sum(w_tax * 10000) + sum(length(w_name)) FROM warehouse)" +
	" + (SELECT sum(d_tax * 10000) + sum(length(d_city)) FROM district)" +
	" + (SELECT count(*) + sum(c_discount * 10000) + sum(length(c_data)) + sum(length(c_last) * c_id) FROM customer)" +
	" + (SELECT count(*) + sum(length(h_data)) FROM history)" +
	" + (SELECT count(*) + sum(o_c_id * o_id) + sum(o_ol_cnt) + sum(coalesce(o_carrier_id, 0)) FROM orders)" +
	" + (SELECT count(*) + sum(ol_i_id * ol_number) + sum(ol_amount * 100) FROM order_line)" +
	" + (SELECT count(*) FROM new_order)" +
	" + (SELECT c_last + c_id + ol_i_id FROM " + nurandTable + ")"

func fingerprintOf(t *testing.T, c target.Conn) float64 {
	t.Helper()
	var f float64
	if err := target.QueryRow(context.Background(), c, fingerprint, nil, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPostgresLoadDeterministic: the same seed makes the same data whether
// the warehouses load in parallel or on one session; another seed makes
// other data. The load has the specification's cardinalities at its scale.
func TestPostgresLoadDeterministic(t *testing.T) {
	tg := testutil.Open(t, testutil.SharedPostgres(t))
	conn := testutil.Session(t, tg)
	args := []string{"--warehouses", "3", "--items", "1000", "--customers-per-district", "30"}
	if n := loadSessions(tg.Dialect(), workload.InitOptions{Connect: tg.Connect}, 3); n < 2 {
		t.Fatalf("%d sessions load 3 warehouses on PostgreSQL", n)
	}
	w := initSeed(t, tg, conn, true, 1, tg.Connect, args...)
	want := map[string]int64{"item": 1000, "warehouse": 3, "stock": 3000, "district": 30, "customer": 900, "history": 900, "orders": 900, "new_order": 270}
	for table, n := range want {
		if w.data[table] != n {
			t.Errorf("%s: %d rows, want %d", table, w.data[table], n)
		}
	}
	if n := w.data["order_line"]; n < 900*minOrderLines || n > 900*maxOrderLines {
		t.Errorf("%d order lines for 900 orders", n)
	}
	parallel := fingerprintOf(t, conn)
	initSeed(t, tg, conn, true, 1, nil, args...)
	if one := fingerprintOf(t, conn); one != parallel {
		t.Errorf("seed 1: %v loaded in parallel, %v on one session", parallel, one)
	}
	initSeed(t, tg, conn, true, 2, tg.Connect, args...)
	if other := fingerprintOf(t, conn); other == parallel {
		t.Errorf("seeds 1 and 2 made the same data (%v)", other)
	}
}

// TestSQLiteInterruptedLoad: data without the completeness mark (a load
// that stopped) is refused with the fix named, and --reinit loads it
// again; data loaded with other flags is reused with the flags it was made
// with.
func TestSQLiteInterruptedLoad(t *testing.T) {
	ctx := context.Background()
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	initWorkload(t, tg, conn, true, small...)
	w, err := parseWorkload("--warehouses", "5")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Init(ctx, conn, tg.Dialect(), workload.InitOptions{Seed: 1, Progress: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	if w.sc.warehouses != 2 || w.sc.items != 1000 || w.Settings()["warehouses"] != 2 {
		t.Errorf("existing data of 2 warehouses taken as %+v", w.sc)
	}
	if err := workload.BeginLoad(ctx, conn, dataName); err != nil {
		t.Fatal(err)
	}
	_, err = w.Init(ctx, conn, tg.Dialect(), workload.InitOptions{Seed: 1, Progress: func(string) {}})
	if !errors.Is(err, workload.ErrIncompleteData) {
		t.Fatalf("Init over an interrupted load: %v", err)
	}
	w = initWorkload(t, tg, conn, true, small...)
	checkOK(t, w, conn)
}

// TestRunConstants: the run's C_LAST keeps clause 2.1.6.1's distance from
// the load's, and a pair that does not is refused.
func TestRunConstants(t *testing.T) {
	for seed := range uint64(200) {
		load := loadConstants(stream(seed, "nurand", 0))
		run := runConstants(stream(seed, "nurand-run", 0), load)
		if err := checkConstants(load, run); err != nil {
			t.Fatal(err)
		}
		if run.cid != load.cid || run.item != load.item {
			t.Fatalf("run %+v, load %+v", run, load)
		}
	}
	for _, d := range []int{0, 64, 96, 112, 120} {
		if err := checkConstants(constants{last: 10}, constants{last: 10 + d}); err == nil {
			t.Errorf("C_LAST %d apart accepted", d)
		}
	}
}
