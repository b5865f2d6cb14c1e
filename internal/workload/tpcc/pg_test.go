package tpcc

import (
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPostgres loads a small TPC-C on a throwaway PostgreSQL cluster with
// COPY, runs a full deck on ten terminals and expects every consistency
// condition and the money to hold.
func TestPostgres(t *testing.T) {
	tg := testutil.Open(t, testutil.SharedPostgres(t))
	conn := testutil.Session(t, tg)
	w := initWorkload(t, tg, conn, true, small...)
	for _, id := range []int{0, 1, 2, 3, 4, 10, 11, 12, 13, 14} {
		runCycles(t, w, conn, id, 100)
	}
	if w.rollbacks.Load() == 0 || w.newOrders.Load() == 0 || w.deliveries.Load() == 0 || w.paidCents.Load() == 0 {
		t.Errorf("%d New-Orders, %d rolled back, %d Deliveries, %d cents paid", w.newOrders.Load(), w.rollbacks.Load(), w.deliveries.Load(), w.paidCents.Load())
	}
	checkOK(t, w, conn)
}
