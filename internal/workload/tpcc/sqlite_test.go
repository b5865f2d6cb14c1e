package tpcc

import (
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestSQLiteRun loads a small TPC-C, runs a full deck of transactions on
// ten terminals of both warehouses with each implementation and expects
// every consistency condition and the money to hold.
func TestSQLiteRun(t *testing.T) {
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	for i, impl := range []string{implBatched, implStatements} {
		w := initWorkload(t, tg, conn, i == 0, append(small, "--implementation", impl)...)
		var ran [5]int
		for id := range 10 { // both warehouses
			r := runCycles(t, w, conn, id, 100)
			for i := range ran {
				ran[i] += r[i]
			}
		}
		t.Logf("%s: ran %v, %d new orders, %d rolled back, %.2f paid", impl, ran, w.newOrders.Load(), w.rollbacks.Load(), float64(w.paidCents.Load())/100)
		if ran != [5]int{450, 430, 40, 40, 40} {
			t.Errorf("%s: mix %v, want 450 430 40 40 40: ten full decks", impl, ran)
		}
		if w.newOrders.Load()+w.rollbacks.Load() != int64(ran[iNewOrder]) {
			t.Errorf("%s: %d New-Orders committed and %d rolled back for %d run", impl, w.newOrders.Load(), w.rollbacks.Load(), ran[iNewOrder])
		}
		checkOK(t, w, conn)
	}
}

// TestSQLiteLedgers: two processes' clients (two workloads started on the
// same data) pay into it; each one's own books explain only its share of
// the money, both books together explain all of it.
func TestSQLiteLedgers(t *testing.T) {
	tg := testutil.SQLite(t)
	conn := testutil.Session(t, tg)
	a := initWorkload(t, tg, conn, true, small...)
	b := initWorkload(t, tg, conn, false, small...)
	runCycles(t, a, conn, 0, 100)
	runCycles(t, b, conn, 11, 100)
	testutil.CheckFails(t, a, conn, []string{"payments = YTD growth"})
	a.UseLedgers([]map[string]int64{a.Ledger(), b.Ledger()})
	checkOK(t, a, conn)
}
