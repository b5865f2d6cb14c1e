package tpcc

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// The values of --implementation: how the five transactions travel.
const (
	// implStatements sends one statement per step of the specification's
	// profiles: per order line a read of the item, an update of its stock
	// and an insert of the line.
	implStatements = "statements"
	// implBatched sends the fewest round trips the profiles allow: a
	// New-Order reads all its items in one statement, updates all its
	// stock rows in one and inserts all its order lines in one, as go-tpc
	// and the published kits do.
	implBatched = "batched"
)

// batch is the SQL of --implementation batched on one dialect. The
// statements of a New-Order's lines are built for every line count (5 to
// 15) and, for the stock, every district's s_dist_xx column.
type batch struct {
	noHeader string // the warehouse's tax and the customer in one read
	// noOrder takes the district's next order id and inserts the order
	// and its new-order row in one statement where the dialect modifies
	// in CTEs; else "" (three statements, as one per step).
	noOrder string
	noItems [maxOrderLines + 1]string                // by line count
	noStock [maxOrderLines + 1][districts + 1]string // by line count, district
	// noStockRead reads what noStock returns where the dialect has no
	// UPDATE ... RETURNING, by line count and district; else "".
	noStockRead [maxOrderLines + 1][districts + 1]string
	noLines     [maxOrderLines + 1]string // by line count

	// payWD updates the warehouse and the district and returns both
	// (one statement where the dialect modifies in CTEs); else payRead
	// reads both after their updates, or is "" (each update returns its
	// own row).
	payWD, payRead string
	osLast         string // the customer, its last order and the order's lines
	// Delivery, by the number of districts delivered (1 to 10): the
	// claim of their oldest new orders (DELETE ... RETURNING), the
	// orders' update (returning their customers, else dlOrderRead reads
	// them), their lines' and their customers'. dlOldest is "" where
	// there is no DELETE ... RETURNING: Delivery then goes district by
	// district.
	dlOldest                                           string
	dlClaim, dlOrder, dlOrderRead, dlLines, dlCustomer [districts + 1]string
	slCount                                            string // Stock-Level in one statement
}

// newBatch builds the batched SQL on a dialect with capabilities c.
func newBatch(c target.Capabilities) batch {
	var b batch
	tag := workload.OpTag(opNewOrder)
	b.noHeader = tag + "SELECT w_tax, c_discount, c_last, c_credit FROM warehouse, customer WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3"
	if c.ModifyingCTEs {
		// $1 the warehouse, $2 the district, $3 the customer, $4 the
		// lines, $5 all local; cast, as a SELECT's list does not type
		// them from the columns they go into.
		b.noOrder = tag + "WITH d AS (UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id - 1 AS o_id, d_tax)," +
			" o AS (INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)" +
			" SELECT o_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER), CAST($3 AS INTEGER), " + c.Now + ", NULL, CAST($4 AS INTEGER), CAST($5 AS INTEGER) FROM d)," +
			" n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT o_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER) FROM d)" +
			" SELECT o_id, d_tax FROM d"
	}
	for n := minOrderLines; n <= maxOrderLines; n++ {
		b.noItems[n] = tag + "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + list(n, 1, 1, "$%d", ", ") + ")"
		b.noLines[n] = tag + "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES " +
			list(n, 4, 6, "($1, $2, $3, $%d, $%d, $%d, NULL, $%d, $%d, $%d)", ", ")
		for d := 1; d <= districts; d++ {
			b.noStock[n][d], b.noStockRead[n][d] = stockBatch(c, tag, n, d)
		}
	}

	tag = workload.OpTag(opPayment)
	wCols, dCols := "w_name, w_street_1, w_street_2, w_city, w_state, w_zip", "d_name, d_street_1, d_street_2, d_city, d_state, d_zip"
	switch {
	case c.ModifyingCTEs:
		b.payWD = tag + "WITH w AS (UPDATE warehouse SET w_ytd = w_ytd + $3 WHERE w_id = $1 RETURNING " + wCols + ")," +
			" d AS (UPDATE district SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2 RETURNING " + dCols + ")" +
			" SELECT " + wCols + ", " + dCols + " FROM w, d"
	case !c.UpdateReturning:
		b.payRead = tag + "SELECT " + wCols + ", " + dCols + " FROM warehouse, district WHERE w_id = $1 AND d_w_id = $1 AND d_id = $2"
	}

	tag = workload.OpTag(opOrderStatus)
	b.osLast = tag + "SELECT c_balance, c_first, c_middle, c_last, o_id, o_carrier_id, o_entry_d, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d" +
		" FROM customer JOIN orders ON o_w_id = c_w_id AND o_d_id = c_d_id AND o_c_id = c_id" +
		" JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id" +
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3" +
		" AND o_id = (SELECT max(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3)"

	tag = workload.OpTag(opDelivery)
	if c.DeleteReturning {
		b.dlOldest = tag + "SELECT no_d_id, min(no_o_id) FROM new_order WHERE no_w_id = $1 GROUP BY no_d_id ORDER BY no_d_id"
		for k := 1; k <= districts; k++ {
			// $1 the warehouse; district j's order is $(2+2j) and
			// $(3+2j) of the claim, the orders' and the lines'
			// statements, the orders' carrier the last.
			keys := func(d, o string) string {
				return " AND (" + list(k, 2, 2, "("+d+" = $%d AND "+o+" = $%d)", " OR ") + ")"
			}
			b.dlClaim[k] = tag + "DELETE FROM new_order WHERE no_w_id = $1" + keys("no_d_id", "no_o_id") + " RETURNING no_d_id, no_o_id"
			b.dlOrder[k] = tag + fmt.Sprintf("UPDATE orders SET o_carrier_id = $%d WHERE o_w_id = $1", 2+2*k) + keys("o_d_id", "o_id")
			if c.UpdateReturning {
				b.dlOrder[k] += " RETURNING o_d_id, o_c_id"
			} else {
				b.dlOrderRead[k] = tag + "SELECT o_d_id, o_c_id FROM orders WHERE o_w_id = $1" + keys("o_d_id", "o_id")
			}
			b.dlLines[k] = tag + "UPDATE order_line SET ol_delivery_d = " + c.Now + " WHERE ol_w_id = $1" + keys("ol_d_id", "ol_o_id")
			// $1 the warehouse; district j's order and customer are
			// $(2+3j), $(3+3j) and $(4+3j). Each customer gets its own
			// order's amounts, summed by the database.
			var order strings.Builder
			for j := range k {
				fmt.Fprintf(&order, " WHEN $%d THEN CAST($%d AS INTEGER)", 2+3*j, 3+3*j)
			}
			b.dlCustomer[k] = tag + "UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM order_line" +
				" WHERE ol_w_id = c_w_id AND ol_d_id = c_d_id AND ol_o_id = CASE c_d_id" + order.String() + " END), c_delivery_cnt = c_delivery_cnt + 1" +
				" WHERE c_w_id = $1 AND (" + list(k, 2, 3, "(c_d_id = $%d AND c_id = $%[3]d)", " OR ") + ")"
		}
	}

	tag = workload.OpTag(opStockLevel)
	b.slCount = tag + "SELECT count(DISTINCT s_i_id) FROM district" +
		" JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20" +
		" JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id" +
		" WHERE d_w_id = $1 AND d_id = $2 AND s_quantity < $3"
	return b
}

// list joins n copies of format with sep, each filled with width
// placeholder numbers counting up from first.
func list(n, first, width int, format, sep string) string {
	parts := make([]string, n)
	for i := range parts {
		nums := make([]any, width)
		for j := range nums {
			nums[j] = first + i*width + j
		}
		parts[i] = fmt.Sprintf(format, nums...)
	}
	return strings.Join(parts, sep)
}

// stockBatch is the one update of a New-Order's n stock rows (clause
// 2.4.2.2) returning district d's s_dist_xx, and where the dialect has no
// UPDATE ... RETURNING the read of the rows after it. $1 is the home
// warehouse; line k's supplying warehouse, item and quantity are $(2+3k),
// $(3+3k) and $(4+3k). Each row's quantity is chosen by a CASE on its key.
// The rows are locked in key order, as the lines are sorted, so batched
// New-Orders do not deadlock on each other: an index range scan visits
// them so (MariaDB, SQLite's single writer); on PostgreSQL, whose OR of
// keys is a bitmap scan in heap order, a CTE locks them ORDER BY the key
// first.
func stockBatch(c target.Capabilities, tag string, n, d int) (update, read string) {
	keys := make([]string, n)
	var q strings.Builder
	q.WriteString("CASE")
	for k := range n {
		w, i, qty := 2+3*k, 3+3*k, 4+3*k
		keys[k] = fmt.Sprintf("(s_w_id = $%d AND s_i_id = $%d)", w, i)
		fmt.Fprintf(&q, " WHEN s_w_id = $%d AND s_i_id = $%d THEN CAST($%d AS INTEGER)", w, i, qty)
	}
	q.WriteString(" END")
	where := strings.Join(keys, " OR ")
	quantity := q.String()
	set := "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= " + quantity + " + 10 THEN s_quantity - " + quantity + " ELSE s_quantity - " + quantity + " + 91 END," +
		" s_ytd = s_ytd + " + quantity + ", s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN s_w_id = $1 THEN 0 ELSE 1 END"
	cols := fmt.Sprintf("s_w_id, s_i_id, s_quantity, s_data, s_dist_%02d", d)
	switch {
	case c.ModifyingCTEs:
		return tag + "WITH l (w, i) AS (SELECT s_w_id, s_i_id FROM stock WHERE " + where + " ORDER BY s_w_id, s_i_id FOR UPDATE) " +
			set + " FROM l WHERE s_w_id = l.w AND s_i_id = l.i RETURNING " + cols, ""
	case c.UpdateReturning:
		return tag + set + " WHERE " + where + " RETURNING " + cols, ""
	}
	return tag + set + " WHERE " + where, tag + "SELECT " + cols + " FROM stock WHERE " + where
}

// orderLine is what a New-Order learns of one line: its item's price and
// its stock's district information.
type orderLine struct {
	price float64
	found bool
	dist  string
}

// lineOf is the index of the line of item (and, with supply > 0, of that
// supplying warehouse), or -1.
func (c *client) lineOf(item, supply int64) int {
	for k, l := range c.lines {
		if int64(l.item) == item && (supply == 0 || int64(l.supply) == supply) {
			return k
		}
	}
	return -1
}

// newOrderBatched is the New-Order transaction (clause 2.4.2) in the
// fewest round trips: the warehouse and the customer in one read, the
// district's update, the order and its new-order row (one statement where
// the dialect modifies in CTEs), then all items in one read, all stock
// rows in one update and all order lines in one insert with the commit.
func (c *client) newOrderBatched(ctx context.Context, conn target.Conn) error {
	w, s, b := c.w, &c.w.sql, &c.w.batch
	n := len(c.lines)
	var wTax, dTax, discount float64
	var oid int64
	var last, credit string
	if err := target.QueryRow(ctx, conn, b.noHeader, []any{c.home, c.d, c.cid}, &wTax, &discount, &last, &credit); err != nil {
		return err
	}
	if b.noOrder != "" {
		if err := target.QueryRow(ctx, conn, b.noOrder, []any{c.home, c.d, c.cid, n, c.allLocal}, &oid, &dTax); err != nil {
			return err
		}
	} else {
		if err := updateRow(ctx, conn, s.noDistrict, s.read(s.noDistrict), []any{c.home, c.d}, &oid, &dTax); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, s.noOrder, oid, c.d, c.home, c.cid, n, c.allLocal); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, s.noNewOrder, oid, c.d, c.home); err != nil {
			return err
		}
	}

	c.args = c.args[:0]
	for _, l := range c.lines {
		c.args = append(c.args, l.item)
	}
	c.found = c.found[:n]
	clear(c.found)
	rows, err := conn.Query(ctx, b.noItems[n], c.args...)
	if err != nil {
		return err
	}
	var found int
	for rows.Next() {
		var id int64
		var price float64
		var name, idata string
		if err := rows.Scan(&id, &price, &name, &idata); err != nil {
			rows.Close()
			return err
		}
		if k := c.lineOf(id, 0); k >= 0 && !c.found[k].found {
			c.found[k] = orderLine{price: price, found: true}
			found++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if found < n {
		if c.rollback {
			// The business rollback of clause 2.4.2.3: a completed
			// New-Order, not an error.
			if err := conn.Rollback(ctx); err != nil {
				return err
			}
			w.rollbacks.Add(1)
			return nil
		}
		return fmt.Errorf("%d of the order's %d items found", found, n)
	}

	c.args = append(c.args[:0], c.home)
	for _, l := range c.lines {
		c.args = append(c.args, l.supply, l.item, l.quantity)
	}
	if err := c.stockRows(ctx, conn, b.noStock[n][c.d], b.noStockRead[n][c.d]); err != nil {
		return err
	}

	c.args = append(c.args[:0], oid, c.d, c.home)
	for k, l := range c.lines {
		amount := float64(int64(l.quantity)*int64(math.Round(c.found[k].price*100))) / 100
		c.args = append(c.args, k+1, l.item, l.supply, l.quantity, amount, c.found[k].dist)
	}
	_, err = conn.ExecCommit(ctx, b.noLines[n], c.args...)
	return c.committed(err, 0, &w.newOrders, 1)
}

// stockRows runs the stock update of c.args and keeps each line's
// s_dist_xx, from the update's RETURNING or, where read is not "", from
// the read after it. Every line's stock row must be there.
func (c *client) stockRows(ctx context.Context, conn target.Conn, update, read string) error {
	n := len(c.lines)
	var rows target.Rows
	var err error
	if read == "" {
		rows, err = conn.Query(ctx, update, c.args...)
	} else {
		var updated int64
		if updated, err = conn.Exec(ctx, update, c.args...); err == nil && updated != int64(n) {
			return fmt.Errorf("%d of the order's %d stock rows updated", updated, n)
		}
		if err == nil {
			rows, err = conn.Query(ctx, read, c.args...)
		}
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var wid, iid, quantity int64
		var sdata, dist string
		if err := rows.Scan(&wid, &iid, &quantity, &sdata, &dist); err != nil {
			return err
		}
		if k := c.lineOf(iid, wid); k >= 0 {
			c.found[k].dist = dist
			got++
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if got != n {
		return fmt.Errorf("%d of the order's %d stock rows returned", got, n)
	}
	return nil
}

// paymentBatched is the Payment transaction (clause 2.5.2) with the
// warehouse's and the district's updates and reads in one statement where
// the dialect modifies in CTEs, else their reads in one after both
// updates (no UPDATE ... RETURNING).
func (c *client) paymentBatched(ctx context.Context, conn target.Conn) error {
	s, b := &c.w.sql, &c.w.batch
	if b.payWD == "" && b.payRead == "" {
		return c.payment(ctx, conn) // each update returns its row: nothing to merge
	}
	amount := float64(c.amountCents) / 100
	var wName, dName string
	dest := append(append(append([]any{&wName}, c.sinks(5)...), &dName), c.sinks(5)...)
	if b.payWD != "" {
		if err := target.QueryRow(ctx, conn, b.payWD, []any{c.home, c.d, amount}, dest...); err != nil {
			return err
		}
	} else {
		for _, u := range []struct {
			sql  string
			args []any
		}{{s.payWarehouse, []any{c.home, amount}}, {s.payDistrict, []any{c.home, c.d, amount}}} {
			if n, err := conn.Exec(ctx, u.sql, u.args...); err != nil {
				return err
			} else if n != 1 {
				return target.ErrNoRow
			}
		}
		if err := target.QueryRow(ctx, conn, b.payRead, []any{c.home, c.d}, dest...); err != nil {
			return err
		}
	}
	return c.payCustomer(ctx, conn, wName, dName)
}

// orderStatusBatched is the Order-Status transaction (clause 2.6.2) with
// the customer, its last order and the order's lines in one read.
func (c *client) orderStatusBatched(ctx context.Context, conn target.Conn) error {
	s, b := &c.w.sql, &c.w.batch
	if c.byName {
		if err := c.customerByName(ctx, conn, s.osByName); err != nil {
			return err
		}
	}
	rows, err := conn.Query(ctx, b.osLast, c.cw, c.cd, c.cid)
	if err != nil {
		return err
	}
	var oid int64
	n, err := countRows(rows, func() []any {
		dest := c.sinks(12)
		dest[4] = &oid
		return dest
	})
	if err != nil {
		return err
	}
	if n < minOrderLines {
		return fmt.Errorf("last order %d of customer %d of district %d, warehouse %d has %d order lines", oid, c.cid, c.cd, c.cw, n)
	}
	return conn.Commit(ctx)
}

// stockLevelBatched is the Stock-Level transaction (clause 2.8.2) in one
// statement, which needs no transaction of its own.
func (c *client) stockLevelBatched(ctx context.Context, conn target.Conn) error {
	var low int64
	return target.QueryRow(ctx, conn, c.w.batch.slCount, []any{c.home, c.district, c.threshold}, &low)
}

// deliveryBatched is the Delivery transaction (clause 2.7.4) for all ten
// districts at once: their oldest new orders in one read, claimed in one
// delete (which returns those no other Delivery took meanwhile), then one
// update each of their orders, their order lines and their customers,
// the last with the commit. Without DELETE ... RETURNING it goes district
// by district.
func (c *client) deliveryBatched(ctx context.Context, conn target.Conn) error {
	b := &c.w.batch
	if b.dlOldest == "" {
		return c.delivery(ctx, conn)
	}
	c.args = append(c.args[:0], c.home)
	if err := c.pairs(ctx, conn, b.dlOldest, c.home); err != nil {
		return err
	}
	if k := (len(c.args) - 1) / 2; k > 0 {
		oldest := append([]any{}, c.args...)
		if err := c.pairs(ctx, conn, b.dlClaim[k], oldest...); err != nil {
			return err
		}
	}
	k := (len(c.args) - 1) / 2
	if k == 0 {
		return c.deliveryCommit(ctx, conn)
	}
	keys := append([]any{}, c.args...) // warehouse, (district, order) each
	orders := append(keys[:len(keys):len(keys)], c.carrier)
	var rows target.Rows
	var err error
	if b.dlOrderRead[k] == "" {
		rows, err = conn.Query(ctx, b.dlOrder[k], orders...)
	} else {
		var n int64
		if n, err = conn.Exec(ctx, b.dlOrder[k], orders...); err == nil && n != int64(k) {
			return fmt.Errorf("%d of %d delivered orders of warehouse %d updated", n, k, c.home)
		}
		if err == nil {
			rows, err = conn.Query(ctx, b.dlOrderRead[k], keys...)
		}
	}
	if err != nil {
		return err
	}
	c.args = append(c.args[:0], c.home)
	for rows.Next() {
		var d, cid int64
		if err := rows.Scan(&d, &cid); err != nil {
			rows.Close()
			return err
		}
		for j := 0; j < k; j++ {
			if keys[1+2*j] == d {
				c.args = append(c.args, d, keys[2+2*j], cid)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(c.args) != 1+3*k {
		return fmt.Errorf("%d of %d delivered orders of warehouse %d found", (len(c.args)-1)/3, k, c.home)
	}
	if _, err := conn.Exec(ctx, b.dlLines[k], keys...); err != nil {
		return err
	}
	n, err := conn.ExecCommit(ctx, b.dlCustomer[k], c.args...)
	if err != nil {
		c.unknown(err, 0)
		return err
	}
	if n != int64(k) {
		return fmt.Errorf("%d of %d delivered orders' customers of warehouse %d updated", n, k, c.home)
	}
	c.w.deliveries.Add(1)
	return nil
}

// pairs runs sql with args and puts the (district, order) pairs it
// returns after c.args' warehouse.
func (c *client) pairs(ctx context.Context, conn target.Conn, sql string, args ...any) error {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	c.args = c.args[:1]
	for rows.Next() {
		var d, o int64
		if err := rows.Scan(&d, &o); err != nil {
			return err
		}
		c.args = append(c.args, d, o)
	}
	return rows.Err()
}

// deliveryCommit commits a Delivery that found nothing to deliver.
func (c *client) deliveryCommit(ctx context.Context, conn target.Conn) error {
	return c.committed(conn.Commit(ctx), 0, &c.w.deliveries, 1)
}
