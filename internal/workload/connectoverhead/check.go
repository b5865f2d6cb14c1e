package connectoverhead

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// totals are the dataset's counts and checksums.
type totals struct {
	users      int64
	orders     int64
	orderCents int64 // sum of the orders' totals
	items      int64
	itemsCents int64 // sum of quantity x price over all items
}

func (w *Workload) totals(ctx context.Context, c target.Conn) (totals, error) {
	var t totals
	err := target.QueryRow(ctx, c, w.sql.totals, nil, &t.users, &t.orders, &t.orderCents, &t.items, &t.itemsCents)
	return t, err
}

func (w *Workload) userRange(ctx context.Context, c target.Conn) (lo, hi int64, err error) {
	err = target.QueryRow(ctx, c, w.sql.userRange, nil, &lo, &hi)
	return lo, hi, err
}

// Check verifies that the read-only run left the dataset as Start found
// it: the same users, orders and items, the same amounts, and every
// order's total equal to the sum of its items.
func (w *Workload) Check(ctx context.Context, c target.Conn) (result.Check, error) {
	var ch result.Check
	t, err := w.totals(ctx, c)
	if err != nil {
		return ch, fmt.Errorf("checking invariants (totals): %w", err)
	}
	var bad int64
	if err := target.QueryRow(ctx, c, w.sql.badTotals, nil, &bad); err != nil {
		return ch, fmt.Errorf("checking invariants (order totals): %w", err)
	}
	b := w.base
	ch.Add("users intact", t.users == b.users,
		"%d users; %d when the run started", t.users, b.users)
	ch.Add("orders intact", t.orders == b.orders && t.orderCents == b.orderCents,
		"%d orders totalling %d cents; %d totalling %d when the run started", t.orders, t.orderCents, b.orders, b.orderCents)
	ch.Add("order items intact", t.items == b.items && t.itemsCents == b.itemsCents,
		"%d order items worth %d cents; %d worth %d when the run started", t.items, t.itemsCents, b.items, b.itemsCents)
	ch.Add("order totals match their items", bad == 0,
		"%d orders whose total differs from the sum of their items (or that have none)", bad)
	return ch, nil
}
