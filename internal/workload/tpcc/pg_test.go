package tpcc

import (
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPostgres loads a small TPC-C on a throwaway PostgreSQL cluster with
// COPY, runs a full deck on ten terminals with each implementation and
// expects every consistency condition and the money to hold.
func TestPostgres(t *testing.T) {
	tg := testutil.Open(t, testutil.SharedPostgres(t))
	conn := testutil.Session(t, tg)
	for i, impl := range []string{implBatched, implStatements} {
		w := initWorkload(t, tg, conn, i == 0, append(small, "--implementation", impl)...)
		for id := range 10 {
			runCycles(t, w, conn, id, 100)
		}
		if w.rollbacks.Load() == 0 || w.newOrders.Load() == 0 || w.deliveries.Load() == 0 || w.paidCents.Load() == 0 {
			t.Errorf("%s: %d New-Orders, %d rolled back, %d Deliveries, %d cents paid", impl, w.newOrders.Load(), w.rollbacks.Load(), w.deliveries.Load(), w.paidCents.Load())
		}
		checkOK(t, w, conn)
	}
}
