package tpcc

import (
	"context"
	"fmt"
	"math"
	"strconv"
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
	// noAll is the whole New-Order in one statement, sent with its BEGIN
	// and COMMIT in one round trip, by line count, where the dialect
	// modifies in CTEs: the district's next order id, the order and its
	// new-order row, the stock rows' update (locked in key order), the
	// order lines from the stock rows joined to their items, and the
	// warehouse's tax and the customer's discount for the order's total.
	// An unused item has no stock row, so fewer lines are inserted than
	// ordered, and the statement fails (failIf, unusedItem): the server
	// rolls the whole transaction back. Else "".
	noAll    [maxOrderLines + 1]string
	noHeader string                                   // the warehouse's tax and the customer in one read
	noItems  [maxOrderLines + 1]string                // by line count
	noStock  [maxOrderLines + 1][districts + 1]string // by line count, district
	// noStockRead reads what noStock returns where the dialect has no
	// UPDATE ... RETURNING, by line count and district; else "".
	noStockRead [maxOrderLines + 1][districts + 1]string
	noLines     [maxOrderLines + 1]string // by line count

	// payAll is the whole Payment in one statement sent with the commit,
	// where the dialect modifies in CTEs, by customer id and by last name
	// (byID, byName): the customer's update, then the warehouse's (joined
	// to the customer's row, so none is made without it) and the
	// district's (joined to the warehouse's, so every Payment locks the
	// warehouse before the district and two do not deadlock on them), the
	// history row, and all three rows returned. Else payRead
	// reads the warehouse and the district after their updates, or is ""
	// (each update returns its own row).
	payAll  [2]string
	payRead string
	osLast  string // the customer, its last order and the order's lines
	// osLastByName is osLast with the customer chosen by last name in
	// the same statement, where the dialect modifies in CTEs (a stand-in
	// for PostgreSQL's OFFSET of a subquery); else "".
	osLastByName string
	// dlAll is the whole Delivery in one statement sent with the commit,
	// where the dialect modifies in CTEs: each district's oldest new
	// order claimed (a DELETE, which skips those another Delivery took
	// meanwhile), the orders', their lines' and their customers' updates
	// from the rows claimed; it fails (failIf) unless as many orders and
	// customers were updated as new orders claimed. Else "".
	dlAll string
	// Else, by the number of districts delivered (1 to 10): the
	// claim of their oldest new orders (DELETE ... RETURNING), the
	// orders' update (returning their customers, else dlOrderRead reads
	// them), their lines' and their customers'. dlOldest is "" where
	// there is no DELETE ... RETURNING: Delivery then goes district by
	// district.
	dlOldest                                           string
	dlClaim, dlOrder, dlOrderRead, dlLines, dlCustomer [districts + 1]string
	slCount                                            string // Stock-Level in one statement
}

// newBatch builds the batched SQL on a dialect with capabilities c from
// its one-per-step statements s.
func newBatch(c target.Capabilities, s *schema) batch {
	var b batch
	tag := workload.OpTag(opNewOrder)
	b.noHeader = tag + "SELECT w_tax, c_discount, c_last, c_credit FROM warehouse, customer WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3"
	for n := minOrderLines; n <= maxOrderLines; n++ {
		if c.ModifyingCTEs {
			b.noAll[n] = newOrderAll(c, tag, n)
			continue
		}
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
		// $1 to $5 the customer's update's (its warehouse, district, id
		// or last name, the amount, the bad-credit text: by name without
		// the id, which the statement puts in front), $6 and $7 the
		// terminal's warehouse and district.
		update, _, _ := strings.Cut(strings.TrimPrefix(s.payCustomer, tag), " RETURNING ")
		cCols := "c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance"
		for i, customer := range []string{update, replaceOnce(replaceOnce(update, "c_id = $3", "c_id = "+middleByName), "CAST($5 AS TEXT)", "CAST(c_id AS TEXT) || CAST($5 AS TEXT)")} {
			b.payAll[i] = tag + "WITH c AS (" + customer + " RETURNING c_id, " + cCols + ")," +
				" w AS (UPDATE warehouse SET w_ytd = w_ytd + $4 FROM (SELECT 1 FROM c) AS one WHERE w_id = $6 RETURNING " + wCols + ")," +
				" d AS (UPDATE district SET d_ytd = d_ytd + $4 FROM (SELECT 1 FROM w) AS one WHERE d_w_id = $6 AND d_id = $7 RETURNING " + dCols + ")," +
				" h AS (INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)" +
				" SELECT c_id, $2, $1, $7, $6, " + c.Now + ", $4, w_name || '    ' || d_name FROM w, d, c)" +
				" SELECT " + wCols + ", " + dCols + ", " + cCols + " FROM w, d, c"
		}
	case !c.UpdateReturning:
		b.payRead = tag + "SELECT " + wCols + ", " + dCols + " FROM warehouse, district WHERE w_id = $1 AND d_w_id = $1 AND d_id = $2"
	}

	tag = workload.OpTag(opOrderStatus)
	b.osLast = tag + "SELECT c_balance, c_first, c_middle, c_last, o_id, o_carrier_id, o_entry_d, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d" +
		" FROM customer JOIN orders ON o_w_id = c_w_id AND o_d_id = c_d_id AND o_c_id = c_id" +
		" JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id" +
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3" +
		" AND o_id = (SELECT max(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3)"
	if c.ModifyingCTEs {
		b.osLastByName = replaceOnce(replaceOnce(b.osLast, "o_c_id = $3", "o_c_id = c_id"), "c_id = $3", "c_id = "+middleByName)
	}

	tag = workload.OpTag(opDelivery)
	switch {
	case c.ModifyingCTEs:
		// $1 the warehouse, $2 the carrier.
		b.dlAll = tag + "WITH oldest AS (SELECT no_d_id AS d_id, min(no_o_id) AS o_id FROM new_order WHERE no_w_id = $1 GROUP BY no_d_id)," +
			" claim AS (DELETE FROM new_order USING oldest WHERE no_w_id = $1 AND no_d_id = d_id AND no_o_id = o_id RETURNING no_d_id, no_o_id)," +
			" o AS (UPDATE orders SET o_carrier_id = $2 FROM claim WHERE o_w_id = $1 AND o_d_id = no_d_id AND o_id = no_o_id RETURNING o_d_id, o_id, o_c_id)," +
			" l AS (UPDATE order_line SET ol_delivery_d = " + c.Now + " FROM claim WHERE ol_w_id = $1 AND ol_d_id = no_d_id AND ol_o_id = no_o_id RETURNING ol_d_id, ol_o_id, ol_amount)," +
			" c AS (UPDATE customer SET c_balance = c_balance + amount, c_delivery_cnt = c_delivery_cnt + 1" +
			" FROM (SELECT o_d_id, o_c_id, sum(ol_amount) AS amount FROM o JOIN l ON ol_d_id = o_d_id AND ol_o_id = o_id GROUP BY o_d_id, o_c_id) AS t" +
			" WHERE c_w_id = $1 AND c_d_id = o_d_id AND c_id = o_c_id RETURNING c_id)" +
			" SELECT " + failIf("ko <> k OR kc <> k", deliveryShort, "k || ' ' || ko || ' ' || kc") +
			" FROM (SELECT (SELECT count(*) FROM claim) AS k, (SELECT count(*) FROM o) AS ko, (SELECT count(*) FROM c) AS kc) AS t"
	case c.DeleteReturning:
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

// middleByName is the id of the customer of district $2 of warehouse $1
// with last name $3 that Payment and Order-Status take (clause 2.5.2.2):
// the middle one of those ordered by first name, n/2 rounded up counting
// from 1, as customerByName takes it.
const middleByName = "(SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first" +
	" OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) LIMIT 1)"

// replaceOnce replaces the one old in s with new; it panics unless s has
// old exactly once (the statements it rewrites are the package's own).
func replaceOnce(s, old, new string) string {
	if strings.Count(s, old) != 1 {
		panic(fmt.Sprintf("tpcc: %q is not once in %q", old, s))
	}
	return strings.Replace(s, old, new, 1)
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
// The rows are locked in key order, as the lines are sorted and an index
// range scan visits them so (MariaDB, SQLite's single writer), so batched
// New-Orders do not deadlock on each other.
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
	set := stockSet(q.String())
	cols := fmt.Sprintf("s_w_id, s_i_id, s_quantity, s_data, s_dist_%02d", d)
	if c.UpdateReturning {
		return tag + set + " WHERE " + where + " RETURNING " + cols, ""
	}
	return tag + set + " WHERE " + where, tag + "SELECT " + cols + " FROM stock WHERE " + where
}

// stockSet is the update of a stock row (clause 2.4.2.2) by quantity, the
// line's ordered quantity; $1 is the home warehouse.
func stockSet(quantity string) string {
	return "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= " + quantity + " + 10 THEN s_quantity - " + quantity + " ELSE s_quantity - " + quantity + " + 91 END," +
		" s_ytd = s_ytd + " + quantity + ", s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN s_w_id = $1 THEN 0 ELSE 1 END"
}

// newOrderAll is batch.noAll for n lines: $1 the warehouse, $2 the
// district, $3 the customer, $4 the lines, $5 all local; line k's
// supplying warehouse, item and quantity are $(6+3k), $(7+3k) and
// $(8+3k). The stock rows are locked after the district's row (their
// lock joins its update) and ORDER BY their key (an OR of keys is a
// bitmap scan in heap order), as the lines are sorted, so New-Orders lock
// in one order whatever each statement's plan, and do not deadlock on
// each other. It returns the order's total
// (clause 2.4.2.2), which the client does not read.
func newOrderAll(c target.Capabilities, tag string, n int) string {
	keys, input := make([]string, n), make([]string, n)
	for k := range keys {
		w, i, q := 6+3*k, 7+3*k, 8+3*k
		keys[k] = fmt.Sprintf("(s_w_id = $%d AND s_i_id = $%d)", w, i)
		input[k] = fmt.Sprintf("(%d, CAST($%d AS INTEGER), CAST($%d AS INTEGER), CAST($%d AS INTEGER))", k+1, w, i, q)
	}
	var dist strings.Builder
	for d := 1; d <= districts; d++ {
		fmt.Fprintf(&dist, " WHEN %d THEN s_dist_%02d", d, d)
	}
	return tag + "WITH input (ol_number, ol_supply_w_id, ol_i_id, ol_quantity) AS (VALUES " + strings.Join(input, ", ") + ")," +
		" d AS (UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id - 1 AS o_id, d_tax)," +
		" o AS (INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)" +
		" SELECT o_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER), CAST($3 AS INTEGER), " + c.Now + ", NULL, CAST($4 AS INTEGER), CAST($5 AS INTEGER) FROM d)," +
		" n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT o_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER) FROM d)," +
		" l (w, i) AS (SELECT s_w_id, s_i_id FROM stock, (SELECT 1 FROM d) AS one WHERE " + strings.Join(keys, " OR ") + " ORDER BY s_w_id, s_i_id FOR UPDATE OF stock)," +
		" s AS (" + stockSet("ol_quantity") + " FROM l, input WHERE s_w_id = l.w AND s_i_id = l.i AND ol_supply_w_id = l.w AND ol_i_id = l.i" +
		" RETURNING ol_number, ol_supply_w_id, ol_i_id, ol_quantity, CASE CAST($2 AS INTEGER)" + dist.String() + " END AS dist)," +
		" ol AS (INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)" +
		" SELECT o_id, CAST($2 AS INTEGER), CAST($1 AS INTEGER), ol_number, ol_i_id, ol_supply_w_id, NULL, ol_quantity, ol_quantity * i_price, dist" +
		" FROM d, s JOIN item ON i_id = ol_i_id RETURNING ol_amount)" +
		" SELECT " + failIf("got < CAST($4 AS INTEGER)", unusedItem+", lines found:", "got") + ", amount * (1 - c_discount) * (1 + w_tax + d_tax)" +
		" FROM (SELECT count(*) AS got, sum(ol_amount) AS amount FROM ol) AS t" +
		" LEFT JOIN (d JOIN warehouse ON w_id = $1 JOIN customer ON c_w_id = $1 AND c_d_id = $2 AND c_id = $3) ON true"
}

// deliveryShort is what batch.dlAll says when it fails (failIf): it
// updated fewer orders or customers than it claimed new orders.
const deliveryShort = "txnbench tpcc: a Delivery updated fewer orders or customers than it claimed new orders:"

// failIf is an expression that fails its statement, and so its
// transaction, where cond holds, with why and the value of got in the
// error: the cast of a text that is not a number. got is a value of the
// statement's rows, so the planner cannot fold the cast into a failure of
// every run.
func failIf(cond, why, got string) string {
	return "CAST(CASE WHEN " + cond + " THEN '" + strings.ReplaceAll(why, "'", "''") + " ' || " + got + " END AS INTEGER)"
}

// failed reports whether err is the failure of a failIf, or of a
// procedure, that said why.
func failed(err error, why string) bool {
	return err != nil && strings.Contains(target.Message(err), why)
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
// fewest round trips: where the dialect modifies in CTEs, one statement
// with its BEGIN and COMMIT (noAll); else the warehouse and the customer
// in one read, the district's update, the order and its new-order row,
// then all items in one read, all stock rows in one update and all order
// lines in one insert with the commit.
func (c *client) newOrderBatched(ctx context.Context, conn target.Conn) error {
	w, s, b := c.w, &c.w.sql, &c.w.batch
	n := len(c.lines)
	if b.noAll[n] != "" {
		c.args = append(c.args[:0], c.home, c.d, c.cid, n, c.allLocal)
		for _, l := range c.lines {
			c.args = append(c.args, l.supply, l.item, l.quantity)
		}
		_, err := conn.ExecCommit(ctx, b.noAll[n], c.args...)
		if failed(err, unusedItem) {
			return c.itemsMissing(ctx, conn, err)
		}
		return c.committed(err, 0, &w.newOrders, 1)
	}
	var wTax, dTax, discount float64
	var oid int64
	var last, credit string
	if err := target.QueryRow(ctx, conn, b.noHeader, []any{c.home, c.d, c.cid}, &wTax, &discount, &last, &credit); err != nil {
		return err
	}
	if err := updateRow(ctx, conn, s.noDistrict, s.read(s.noDistrict), []any{c.home, c.d}, &oid, &dTax); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, s.noOrder, oid, c.d, c.home, c.cid, n, c.allLocal); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, s.noNewOrder, oid, c.d, c.home); err != nil {
		return err
	}

	c.found = c.found[:n]
	clear(c.found)
	if found, err := c.items(ctx, conn, b.noItems[n]); err != nil {
		return err
	} else if found < n {
		return c.itemsMissing(ctx, conn, fmt.Errorf("%d of the order's %d items found", found, n))
	}

	c.args = append(c.args[:0], c.home)
	for _, l := range c.lines {
		c.args = append(c.args, l.supply, l.item, l.quantity)
	}
	if got, err := c.stockRows(ctx, conn, b.noStock[n][c.d], b.noStockRead[n][c.d]); err != nil {
		return err
	} else if got < n {
		return fmt.Errorf("%d of the order's %d stock rows returned", got, n)
	}

	c.args = append(c.args[:0], oid, c.d, c.home)
	for k, l := range c.lines {
		amount := float64(int64(l.quantity)*int64(math.Round(c.found[k].price*100))) / 100
		c.args = append(c.args, k+1, l.item, l.supply, l.quantity, amount, c.found[k].dist)
	}
	_, err := conn.ExecCommit(ctx, b.noLines[n], c.args...)
	return c.committed(err, 0, &w.newOrders, 1)
}

// items reads the order's items with sql and keeps each line's price; it
// returns how many of the lines' items were found.
func (c *client) items(ctx context.Context, conn target.Conn, sql string) (found int, err error) {
	c.args = c.args[:0]
	for _, l := range c.lines {
		c.args = append(c.args, l.item)
	}
	rows, err := conn.Query(ctx, sql, c.args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var price float64
		var name, idata string
		if err := rows.Scan(&id, &price, &name, &idata); err != nil {
			return 0, err
		}
		if k := c.lineOf(id, 0); k >= 0 && !c.found[k].found {
			c.found[k] = orderLine{price: price, found: true}
			found++
		}
	}
	return found, rows.Err()
}

// itemsMissing ends a New-Order that did not find all its items (err
// says how many): the business rollback of clause 2.4.2.3, a completed
// New-Order and not an error, when the order has the unused item.
func (c *client) itemsMissing(ctx context.Context, conn target.Conn, err error) error {
	if !c.rollback {
		return err
	}
	if err := conn.Rollback(ctx); err != nil {
		return err
	}
	c.w.rollbacks.Add(1)
	return nil
}

// stockRows runs the stock update of c.args and keeps each line's
// s_dist_xx, from the update's RETURNING or, where read is not "", from
// the read after it. It returns how many lines' stock rows came back.
func (c *client) stockRows(ctx context.Context, conn target.Conn, update, read string) (got int, err error) {
	n := len(c.lines)
	var rows target.Rows
	if read == "" {
		rows, err = conn.Query(ctx, update, c.args...)
	} else {
		var updated int64
		if updated, err = conn.Exec(ctx, update, c.args...); err == nil && updated != int64(n) {
			return 0, fmt.Errorf("%d of the order's %d stock rows updated", updated, n)
		}
		if err == nil {
			rows, err = conn.Query(ctx, read, c.args...)
		}
	}
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var wid, iid, quantity int64
	var sdata, dist string
	for rows.Next() {
		if err := rows.Scan(&wid, &iid, &quantity, &sdata, &dist); err != nil {
			return 0, err
		}
		if k := c.lineOf(iid, wid); k >= 0 {
			c.found[k].dist = dist
			got++
		}
	}
	return got, rows.Err()
}

// paymentBatched is the Payment transaction (clause 2.5.2): where the
// dialect modifies in CTEs, the customer by name if so chosen, then all
// the rest in one statement sent with the commit; else the warehouse's
// and the district's reads in one after both updates (no UPDATE ...
// RETURNING).
func (c *client) paymentBatched(ctx context.Context, conn target.Conn) error {
	s, b := &c.w.sql, &c.w.batch
	if b.payAll[0] == "" && b.payRead == "" {
		return c.payment(ctx, conn) // each update returns its row: nothing to merge
	}
	amount := float64(c.amountCents) / 100
	if b.payAll[0] != "" {
		return c.payAll(ctx, conn, amount)
	}
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
	var wName, dName string
	dest := append(append(append([]any{&wName}, c.sinks(5)...), &dName), c.sinks(5)...)
	if err := target.QueryRow(ctx, conn, b.payRead, []any{c.home, c.d}, dest...); err != nil {
		return err
	}
	return c.payCustomer(ctx, conn, wName, dName)
}

// payAll is a Payment's one statement with the commit (batch.payAll), by
// customer id or by last name. The statement returns one row, or none if
// the customer is missing: then it changed nothing.
func (c *client) payAll(ctx context.Context, conn target.Conn, amount float64) error {
	rest := fmt.Sprintf(" %d %d %d %d %s | ", c.cd, c.cw, c.d, c.home, cents(c.amountCents))
	var n int64
	var err error
	if c.byName {
		n, err = conn.ExecCommit(ctx, c.w.batch.payAll[1], c.cw, c.cd, c.last, amount, rest, c.home, c.d)
	} else {
		n, err = conn.ExecCommit(ctx, c.w.batch.payAll[0], c.cw, c.cd, c.cid, amount, strconv.Itoa(c.cid)+rest, c.home, c.d)
	}
	if err != nil {
		c.unknown(err, c.amountCents)
		return err
	}
	if n != 1 {
		return fmt.Errorf("the Payment's customer of district %d, warehouse %d: %w", c.cd, c.cw, target.ErrNoRow)
	}
	c.w.paidCents.Add(c.amountCents)
	return nil
}

// orderStatusBatched is the Order-Status transaction (clause 2.6.2) with
// the customer, its last order and the order's lines in one read; where
// the dialect has osLastByName, the customer by name in it too, one
// statement that needs no transaction of its own (it reads from one
// snapshot).
func (c *client) orderStatusBatched(ctx context.Context, conn target.Conn) error {
	s, b := &c.w.sql, &c.w.batch
	if b.osLastByName != "" {
		if c.byName {
			return c.lastOrder(ctx, conn, b.osLastByName, c.last)
		}
		return c.lastOrder(ctx, conn, b.osLast, c.cid)
	}
	if err := conn.Begin(ctx); err != nil {
		return err
	}
	defer conn.Rollback(ctx)
	if c.byName {
		if err := c.customerByName(ctx, conn, s.osByName); err != nil {
			return err
		}
	}
	if err := c.lastOrder(ctx, conn, b.osLast, c.cid); err != nil {
		return err
	}
	return conn.Commit(ctx)
}

// lastOrder reads the customer of district c.cd, warehouse c.cw given by
// customer (an id or a last name, for sql), its last order and the
// order's lines, which must be at least minOrderLines.
func (c *client) lastOrder(ctx context.Context, conn target.Conn, sql string, customer any) error {
	rows, err := conn.Query(ctx, sql, c.cw, c.cd, customer)
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
		return fmt.Errorf("last order %d of customer %v of district %d, warehouse %d has %d order lines", oid, customer, c.cd, c.cw, n)
	}
	return nil
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
	if b.dlAll != "" {
		_, err := conn.ExecCommit(ctx, b.dlAll, c.home, c.carrier)
		return c.committed(err, 0, &c.w.deliveries, 1)
	}
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
