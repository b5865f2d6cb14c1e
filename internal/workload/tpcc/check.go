package tpcc

import (
	"context"
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// money is what the tables hold in total: the warehouses' and districts'
// year-to-date payments and the history's amounts.
type money struct {
	wYTD, dYTD, history float64
}

func (w *Workload) money(ctx context.Context, c target.Conn) (m money, err error) {
	err = target.QueryRow(ctx, c, "SELECT (SELECT coalesce(sum(w_ytd), 0) FROM warehouse), (SELECT coalesce(sum(d_ytd), 0) FROM district), (SELECT coalesce(sum(h_amount), 0) FROM history)",
		nil, &m.wYTD, &m.dYTD, &m.history)
	return m, err
}

// sameMoney compares amounts to half a cent: exact decimals on a server,
// floating point on SQLite.
const sameMoney = 0.005

// condition is one consistency condition of clause 3.3.2: sql counts what
// breaks it (warehouses, districts, orders, order lines or customers).
type condition struct {
	name      string
	sql       string
	what      string // what sql counts
	expensive bool   // reads every order line or customer
	loadOnly  bool   // holds after the load only (condition 11)
}

// conditions are the consistency conditions 3.3.2.1 to 3.3.2.12.
var conditions = []condition{
	{name: "3.3.2.1 W_YTD = sum(D_YTD)", what: "warehouses",
		sql: "SELECT count(*) FROM warehouse LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) AS d ON d.d_w_id = w_id" +
			" WHERE d.s IS NULL OR abs(w_ytd - d.s) >= 0.005"},
	{name: "3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", what: "districts",
		sql: "SELECT count(*) FROM district" +
			" LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) AS o ON o.o_w_id = d_w_id AND o.o_d_id = d_id" +
			" LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) AS n ON n.no_w_id = d_w_id AND n.no_d_id = d_id" +
			" WHERE o.m IS NULL OR d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND n.m <> o.m)"},
	{name: "3.3.2.3 max(NO_O_ID) - min(NO_O_ID) + 1 = new orders", what: "districts",
		sql: "SELECT count(*) FROM (SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) AS x WHERE span <> n"},
	{name: "3.3.2.4 sum(O_OL_CNT) = order lines", what: "districts", expensive: true,
		sql: "SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) AS o" +
			" LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) AS l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id" +
			" WHERE l.n IS NULL OR l.n <> o.s"},
	{name: "3.3.2.5 O_CARRIER_ID null iff a new order", what: "orders", expensive: true,
		sql: "SELECT count(*) FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id" +
			" WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL)"},
	{name: "3.3.2.6 O_OL_CNT = its order lines", what: "orders", expensive: true,
		sql: "SELECT count(*) FROM orders LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) AS l" +
			" ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id WHERE l.n IS NULL OR l.n <> o_ol_cnt"},
	{name: "3.3.2.7 OL_DELIVERY_D null iff O_CARRIER_ID null", what: "order lines", expensive: true,
		sql: "SELECT count(*) FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id" +
			" WHERE (ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL)"},
	{name: "3.3.2.8 W_YTD = sum(H_AMOUNT)", what: "warehouses",
		sql: "SELECT count(*) FROM warehouse LEFT JOIN (SELECT h_w_id, sum(h_amount) AS s FROM history GROUP BY h_w_id) AS h ON h.h_w_id = w_id" +
			" WHERE abs(w_ytd - coalesce(h.s, 0)) >= 0.005"},
	{name: "3.3.2.9 D_YTD = sum(H_AMOUNT)", what: "districts",
		sql: "SELECT count(*) FROM district LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) AS h ON h.h_w_id = d_w_id AND h.h_d_id = d_id" +
			" WHERE abs(d_ytd - coalesce(h.s, 0)) >= 0.005"},
	{name: "3.3.2.10 C_BALANCE = delivered OL_AMOUNT - H_AMOUNT", what: "customers", expensive: true,
		sql: byCustomer("c_balance", " UNION ALL SELECT h_c_w_id, h_c_d_id, h_c_id, h_amount FROM history")},
	{name: "3.3.2.11 orders - new orders = delivered at load", what: "districts", loadOnly: true,
		sql: "SELECT count(*) FROM (SELECT o_w_id, o_d_id, count(*) AS n FROM orders GROUP BY o_w_id, o_d_id) AS o" +
			" LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) AS n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id" +
			" WHERE o.n - coalesce(n.n, 0) <> $1"},
	{name: "3.3.2.12 C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT", what: "customers", expensive: true,
		sql: byCustomer("c_balance + c_ytd_payment", "")},
}

// byCustomer counts the customers whose amounts do not add up to zero:
// each customer's own (the expression own), less its delivered order
// lines' amounts, and the rows of more (" UNION ALL SELECT w, d, c,
// amount ...", or ""). One pass over each table, summed by customer: a
// customer joined to the sums of its orders is read, on MariaDB, by a
// lateral derived table that scans the district's orders per customer
// (minutes for one warehouse).
func byCustomer(own, more string) string {
	return "SELECT count(*) FROM (SELECT w, d, c FROM (SELECT c_w_id AS w, c_d_id AS d, c_id AS c, " + own + " AS x FROM customer" +
		" UNION ALL SELECT o_w_id, o_d_id, o_c_id, -ol_amount FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id" +
		" WHERE ol_delivery_d IS NOT NULL" + more + ") AS u GROUP BY w, d, c HAVING abs(sum(x)) >= 0.005) AS v"
}

// full reports whether the check runs the expensive conditions.
func (w *Workload) full() bool {
	return w.check == checkFull || (w.check == checkAuto && w.sc.warehouses <= autoFullWarehouses)
}

// Check verifies the consistency conditions of clause 3.3.2, one line
// each, and the money: the payments the clients committed are the growth
// of the history, and the warehouses' and districts' year-to-date totals
// grew by as much.
func (w *Workload) Check(ctx context.Context, c target.Conn) (result.Check, error) {
	var ch result.Check
	b := w.books()
	ch.UnknownCommits = b[bookUnknownCommits]
	changed := b[bookNewOrders] + b[bookDeliveries] + ch.UnknownCommits
	for _, cond := range conditions {
		switch {
		case cond.expensive && w.check == checkQuick:
			ch.Add(cond.name, true, "skipped by --check quick (it reads every order line or customer)")
			continue
		case cond.expensive && !w.full():
			ch.Add(cond.name, true, "skipped above %d warehouses (--check full runs it)", autoFullWarehouses)
			continue
		case cond.loadOnly && changed > 0:
			ch.Add(cond.name, true, "skipped: holds only until the first New-Order or Delivery, and the run committed %d", changed)
			continue
		}
		var args []any
		if cond.loadOnly {
			args = []any{w.sc.delivered()}
		}
		var bad int64
		if err := target.QueryRow(ctx, c, cond.sql, args, &bad); err != nil {
			return ch, fmt.Errorf("checking consistency condition %s: %w", cond.name, err)
		}
		ch.Add(cond.name, bad == 0, "%d %s break it", bad, cond.what)
	}
	m, err := w.money(ctx, c)
	if err != nil {
		return ch, fmt.Errorf("checking the money: %w", err)
	}
	paid := float64(b[bookPaid]) / 100
	unknown := float64(b[bookUnknownPaid]) / 100
	dh := float64(toCents(m.history)-b[bookHistory]) / 100
	dw := float64(toCents(m.wYTD)-b[bookWarehouseYTD]) / 100
	dd := float64(toCents(m.dYTD)-b[bookDistrictYTD]) / 100
	ch.Lost = &result.Lost{Count: max(0, b[bookPaid]-(toCents(m.history)-b[bookHistory])), Unit: "cents of payments"}
	ok := math.Abs(dw-dh) < sameMoney && math.Abs(dd-dh) < sameMoney && dh > paid-sameMoney && dh < paid+unknown+sameMoney
	ch.Add("payments = YTD growth", ok,
		"history grew by %.2f, warehouses' W_YTD by %.2f, districts' D_YTD by %.2f; the clients committed %.2f in payments (and up to %.2f of unknown outcome)",
		dh, dw, dd, paid, unknown)
	return ch, nil
}
