package tpcc

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// op is a transaction's row of a result: its count and p90 (ms).
func op(name string, n int64, p90ms float64) result.Op {
	return result.Op{Name: name, Summary: metrics.Summary{Count: n, P90: p90ms}}
}

// TestFigures computes tpmC, NOPM, tpmTotal and the efficiency from a
// result of two minutes, and marks the Delivery's p90 over its 80 s limit.
func TestFigures(t *testing.T) {
	w, err := parseWorkload("--warehouses", "2")
	if err != nil {
		t.Fatal(err)
	}
	w.newOrders.Store(99)
	w.rollbacks.Store(1)
	r := &result.Result{MeasuredS: 120, Ops: []result.Op{
		op(opNewOrder, 40, 20), op(opPayment, 38, 10), op(opOrderStatus, 4, 3), op(opDelivery, 4, 81_000), op(opStockLevel, 4, 15),
	}}
	got := strings.Join(w.Figures(r), "\n")
	plain.Contains(t, "figures", got,
		"tpmC       20.0 New-Orders per minute (1 rolled back on an unused item included), NOPM 19.8, tpmTotal 45.0, efficiency 77.8% of 12.86 x 2 warehouses",
		"new-order 20ms (limit 5s) pass",
		"delivery 1m21s (limit 1m20s) FAIL",
		"a limit is EXCEEDED",
	)
	r.Ops[3].P90 = 79_000
	if got := strings.Join(w.Figures(r), "\n"); !strings.Contains(got, "all within the limits") {
		t.Errorf("p90s within their limits:\n%s", got)
	}
}

// TestFiguresSayWhatTheyCannotMeasure: without the wait times the
// efficiency is not a percentage (it was 74882.5%), and a window too short
// for any New-Order says so and what to do, and "not run" transactions
// are never "all within the limits".
func TestFiguresSayWhatTheyCannotMeasure(t *testing.T) {
	flat, err := parseWorkload("--wait=false")
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{MeasuredS: 10, Ops: []result.Op{
		op(opNewOrder, 16000, 2), op(opPayment, 15000, 1), op(opOrderStatus, 1500, 1), op(opDelivery, 1500, 5), op(opStockLevel, 1500, 1),
	}}
	got := strings.Join(flat.Figures(r), "\n")
	if strings.Contains(got, "%") || !strings.Contains(got, "efficiency not measured: it needs the keying and think times (--wait=false") {
		t.Errorf("--wait=false: want no efficiency percentage:\n%s", got)
	}

	waits, err := parseWorkload()
	if err != nil {
		t.Fatal(err)
	}
	r = &result.Result{MeasuredS: 10, Ops: []result.Op{op(opPayment, 2, 10)}}
	got = strings.Join(waits.Figures(r), "\n")
	plain.Contains(t, "a 10 s window with wait times: figures", got,
		"tpmC       0.0 ",
		"no New-Order completed in the 10s window: each terminal keys 18s before each New-Order and thinks 12s on average after it; give a --duration of minutes, or --wait=false",
		"new-order not run",
		"payment 10ms (limit 5s) pass",
		": those run within the limits; new-order, order-status, delivery, stock-level not judged (none completed)",
	)
	plain.Lacks(t, "figures with transactions not run", got, "all within the limits")
	r.Ops = nil
	plain.Contains(t, "figures with nothing completed", strings.Join(waits.Figures(r), "\n"), ": none judged: no transaction completed")
}
