package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestSQLiteCheckDetectsEachCondition plants a violation of each
// consistency condition in freshly loaded data (district 1 of warehouse 1
// has orders 1-21 delivered and 22-30 new) and expects the check to fail
// on exactly the conditions the change breaks.
func TestSQLiteCheckDetectsEachCondition(t *testing.T) {
	const money = 13 // the money's line, after the twelve conditions
	tests := []struct {
		sql    string
		failed []int // conditions 1-12, and money
	}{
		{"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1", []int{1, 8, money}},
		{"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 1", []int{2}},
		{"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 25", []int{3, 5, 11}},
		{"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1", []int{4, 6}},
		{"UPDATE orders SET o_carrier_id = 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 30", []int{5, 7}},
		{"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1", []int{4, 6}},
		{"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1", []int{7}},
		{"UPDATE history SET h_amount = h_amount + 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1", []int{8, 9, 10, money}},
		{"UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 1", []int{1, 9, money}},
		{"UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1", []int{10, 12}},
		{"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 22", []int{5, 11}},
		{"UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1", []int{12}},
	}
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	initWorkload(t, tg, conn, true, small...)
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			ctx := context.Background()
			if err := conn.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			defer conn.Rollback(ctx) // the next case starts from the loaded data
			w := initWorkload(t, tg, conn, false, small...)
			checkOK(t, w, conn)
			if n, err := conn.Exec(ctx, tt.sql); err != nil || n != 1 {
				t.Fatalf("%d rows, %v", n, err)
			}
			var want []string
			for _, i := range tt.failed {
				if i == money {
					want = append(want, "payments = YTD growth")
				} else {
					want = append(want, conditions[i-1].name)
				}
			}
			testutil.CheckFails(t, w, conn, want)
		})
	}
}

// TestSQLiteCheckScope: --check quick skips the conditions that read every
// order line or customer, saying so (a planted violation of one goes
// unseen); auto runs them up to 10 warehouses, full always. Over data of
// fewer warehouses than --active-warehouses, Start refuses.
func TestSQLiteCheckScope(t *testing.T) {
	ctx := context.Background()
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	initWorkload(t, tg, conn, true, small...)
	if _, err := conn.Exec(ctx, "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1"); err != nil {
		t.Fatal(err)
	}
	w := initWorkload(t, tg, conn, false, "--check", "quick")
	ch := checkOK(t, w, conn)
	skipped := 0
	for _, it := range ch.Items {
		if strings.HasPrefix(it.Detail, "skipped by --check quick") {
			skipped++
		}
	}
	if skipped != 6 {
		t.Errorf("%d conditions skipped by --check quick, want 6: %+v", skipped, ch)
	}
	w = initWorkload(t, tg, conn, false, "--check", "auto")
	testutil.CheckFails(t, w, conn, []string{conditions[3].name, conditions[5].name})
	w.sc.warehouses = 11
	if w.full() {
		t.Error("--check auto reads every order line of 11 warehouses")
	}
	w.check = checkFull
	if !w.full() {
		t.Error("--check full skips conditions")
	}
	w, err := parseWorkload("--active-warehouses", "3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Init(ctx, conn, tg.Dialect(), workload.InitOptions{Seed: 1, Progress: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx, conn); err == nil || !strings.Contains(err.Error(), "--active-warehouses 3 is more than the 2 warehouses loaded") {
		t.Errorf("Start with 3 active of 2 warehouses: %v", err)
	}
}
