package tpcc

import (
	"math"

	"github.com/txnbench/txnbench/internal/workload"
)

// The names of the TPC-C books (workload.Ledger).
const (
	bookHistory        = "base_history_cents" // sum(h_amount) at Start
	bookWarehouseYTD   = "base_w_ytd_cents"   // sum(w_ytd) at Start
	bookDistrictYTD    = "base_d_ytd_cents"   // sum(d_ytd) at Start
	bookNewOrders      = "new_orders"
	bookDeliveries     = "deliveries"
	bookPaid           = "paid_cents"
	bookUnknownCommits = "unknown_commits"
	bookUnknownPaid    = "unknown_paid_cents"
)

// toCents is an amount in whole cents.
func toCents(v float64) int64 { return int64(math.Round(v * 100)) }

var _ workload.Ledger = (*Workload)(nil)

// Ledger is what this process's clients committed since Start, and the
// money there was when it started.
func (w *Workload) Ledger() map[string]int64 {
	return map[string]int64{
		bookHistory:        toCents(w.base.history),
		bookWarehouseYTD:   toCents(w.base.wYTD),
		bookDistrictYTD:    toCents(w.base.dYTD),
		bookNewOrders:      w.newOrders.Load(),
		bookDeliveries:     w.deliveries.Load(),
		bookPaid:           w.paidCents.Load(),
		bookUnknownCommits: w.unknownCommits.Load(),
		bookUnknownPaid:    w.unknownPaidCents.Load(),
	}
}

// UseLedgers makes Check count every shard's books.
func (w *Workload) UseLedgers(books []map[string]int64) { w.ledgers = books }

// books is what Check compares the database with: this process's own
// Ledger, or with UseLedgers the sum of every shard's. The shards' money
// at Start is the same (each read it before any shard ran); the smallest
// is taken, so a difference shows as a violation.
func (w *Workload) books() map[string]int64 {
	if w.ledgers == nil {
		return w.Ledger()
	}
	sum := map[string]int64{}
	for i, b := range w.ledgers {
		for k, v := range b {
			switch k {
			case bookHistory, bookWarehouseYTD, bookDistrictYTD:
				if i == 0 || v < sum[k] {
					sum[k] = v
				}
			default:
				sum[k] += v
			}
		}
	}
	return sum
}
