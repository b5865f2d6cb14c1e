package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// implProcedures runs each transaction as one call of a stored procedure
// that Init creates (PL/pgSQL functions on PostgreSQL, stored procedures
// on MariaDB and MySQL), as HammerDB's TPROC-C does.
const implProcedures = "procedures"

// procs is the SQL of --implementation procedures on one dialect: the
// statements that create the procedures and the calls of each.
type procs struct {
	create                                               []string
	newOrder, payment, orderStatus, delivery, stockLevel string
}

// unusedItem is the error New-Order's procedure raises on an order line
// of an unused item (clause 2.4.2.3): the whole transaction is rolled
// back, and the client counts a completed New-Order.
const unusedItem = "txnbench tpcc: unused item"

// procPrefix starts the name of every procedure txnbench makes.
const procPrefix = "txnbench_tpcc_"

// newProcs builds the procedures for capabilities c, or an error where the
// dialect has none.
func newProcs(name string, c target.Capabilities) (procs, error) {
	var p procs
	var dist strings.Builder // district p_d's s_dist_xx column
	dist.WriteString("CASE p_d")
	for d := 1; d <= districts; d++ {
		fmt.Fprintf(&dist, " WHEN %d THEN s_dist_%02d", d, d)
	}
	dist.WriteString(" END")
	// The middle customer of a last name (clause 2.5.2.2), v_n of them.
	const byName = "SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last ORDER BY c_first "
	now := c.Now
	switch c.Procedures {
	case "plpgsql":
		fn := func(name, params, declare, body string) string {
			return "CREATE OR REPLACE FUNCTION " + procPrefix + name + "(" + params + ") RETURNS INTEGER LANGUAGE plpgsql AS $$\nDECLARE\n" + declare + "\nBEGIN\n" + body + "\nEND\n$$"
		}
		customer := `  IF p_last <> '' THEN
    SELECT count(*) INTO v_n FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_n = 0 THEN RAISE EXCEPTION 'no customer named % in district % of warehouse %', p_last, p_cd, p_cw; END IF;
    ` + byName + `OFFSET (v_n - 1) / 2 LIMIT 1;
  END IF;`
		p.create = []string{
			fn("new_order", "p_w INTEGER, p_d INTEGER, p_c INTEGER, p_all_local INTEGER, p_items TEXT, p_supply TEXT, p_qty TEXT", `  v_items INTEGER[] := string_to_array(p_items, ',')::INTEGER[];
  v_supply INTEGER[] := string_to_array(p_supply, ',')::INTEGER[];
  v_qty INTEGER[] := string_to_array(p_qty, ',')::INTEGER[];
  v_n INTEGER := array_length(v_items, 1);
  v_w_tax NUMERIC; v_d_tax NUMERIC; v_discount NUMERIC; v_last TEXT; v_credit TEXT;
  v_o INTEGER; v_price NUMERIC; v_dist TEXT;`, `  SELECT w_tax, c_discount, c_last, c_credit INTO v_w_tax, v_discount, v_last, v_credit FROM warehouse, customer
    WHERE w_id = p_w AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d RETURNING d_next_o_id - 1, d_tax INTO v_o, v_d_tax;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (v_o, p_d, p_w, p_c, `+now+`, NULL, v_n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
  FOR k IN 1..v_n LOOP
    SELECT i_price INTO v_price FROM item WHERE i_id = v_items[k];
    IF NOT FOUND THEN RAISE EXCEPTION '`+unusedItem+` %', v_items[k]; END IF;
    UPDATE stock SET s_quantity = CASE WHEN s_quantity >= v_qty[k] + 10 THEN s_quantity - v_qty[k] ELSE s_quantity - v_qty[k] + 91 END,
        s_ytd = s_ytd + v_qty[k], s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN v_supply[k] = p_w THEN 0 ELSE 1 END
      WHERE s_w_id = v_supply[k] AND s_i_id = v_items[k] RETURNING `+dist.String()+` INTO v_dist;
    IF NOT FOUND THEN RAISE EXCEPTION 'no stock of item % in warehouse %', v_items[k], v_supply[k]; END IF;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o, p_d, p_w, k, v_items[k], v_supply[k], NULL, v_qty[k], v_qty[k] * v_price, v_dist);
  END LOOP;
  RETURN v_o;`),
			fn("payment", "p_w INTEGER, p_d INTEGER, p_cw INTEGER, p_cd INTEGER, p_c INTEGER, p_last TEXT, p_amount NUMERIC",
				"  v_c INTEGER := p_c; v_n INTEGER; v_wname TEXT; v_dname TEXT;", `  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w RETURNING w_name INTO v_wname;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d RETURNING d_name INTO v_dname;
`+customer+`
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC' THEN substr(v_c || ' ' || p_cd || ' ' || p_cw || ' ' || p_d || ' ' || p_w || ' ' || p_amount || ' | ' || c_data, 1, 500) ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  IF NOT FOUND THEN RAISE EXCEPTION 'no customer % in district % of warehouse %', v_c, p_cd, p_cw; END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (v_c, p_cd, p_cw, p_d, p_w, `+now+`, p_amount, v_wname || '    ' || v_dname);
  RETURN v_c;`),
			fn("order_status", "p_cw INTEGER, p_cd INTEGER, p_c INTEGER, p_last TEXT",
				"  v_c INTEGER := p_c; v_n INTEGER; v_o INTEGER; v_balance NUMERIC; v_first TEXT; v_middle TEXT; v_clast TEXT; v_carrier INTEGER; v_entry orders.o_entry_d%TYPE;",
				customer+`
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_clast FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  SELECT o_id, o_carrier_id, o_entry_d INTO v_o, v_carrier, v_entry FROM orders WHERE o_w_id = p_cw AND o_d_id = p_cd AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
  SELECT count(*) INTO v_n FROM (SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = p_cw AND ol_d_id = p_cd AND ol_o_id = v_o) AS l;
  RETURN v_n;`),
			fn("delivery", "p_w INTEGER, p_carrier INTEGER", "  v_o INTEGER; v_c INTEGER; v_done INTEGER := 0;", `  FOR v_d IN 1..10 LOOP
    SELECT min(no_o_id) INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d;
    CONTINUE WHEN v_o IS NULL;
    DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
    CONTINUE WHEN NOT FOUND; -- delivered by another terminal meanwhile
    UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o RETURNING o_c_id INTO v_c;
    UPDATE order_line SET ol_delivery_d = `+now+` WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
    UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o),
        c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
    IF NOT FOUND THEN RAISE EXCEPTION 'no customer % in district % of warehouse %', v_c, v_d, p_w; END IF;
    v_done := v_done + 1;
  END LOOP;
  RETURN v_done;`),
			fn("stock_level", "p_w INTEGER, p_d INTEGER, p_threshold INTEGER", "  v_next INTEGER; v_low INTEGER;", `  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT count(DISTINCT s_i_id) INTO v_low FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20 AND s_quantity < p_threshold;
  RETURN v_low;`),
		}
		call := func(name string, n int) string {
			return "SELECT " + procPrefix + name + "(" + list(n, 1, 1, "$%d", ", ") + ")"
		}
		p.newOrder, p.payment, p.orderStatus, p.delivery, p.stockLevel = call("new_order", 7), call("payment", 7), call("order_status", 4), call("delivery", 2), call("stock_level", 3)
	case "sql/psm":
		// Each procedure is its own transaction: called with autocommit
		// on, it begins, commits, and rolls back on any error before
		// passing it on; its last statement returns its result.
		proc := func(name, params, declare, body, result string) string {
			return "CREATE OR REPLACE PROCEDURE " + procPrefix + name + "(" + params + ")\nBEGIN\n" + declare +
				"\n  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;\n  START TRANSACTION;\n" + body + "\n  COMMIT;\n  SELECT " + result + ";\nEND"
		}
		field := func(list, k string) string {
			return "SUBSTRING_INDEX(SUBSTRING_INDEX(" + list + ", ',', " + k + "), ',', -1)"
		}
		customer := `  IF p_last <> '' THEN
    SET v_n = (SELECT count(*) FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last);
    IF v_n = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer of the last name in the district'; END IF;
    SET v_n = (v_n - 1) DIV 2;
    ` + byName + `LIMIT v_n, 1;
  END IF;`
		p.create = []string{
			proc("new_order", "p_w INTEGER, p_d INTEGER, p_c INTEGER, p_all_local INTEGER, p_items VARCHAR(200), p_supply VARCHAR(200), p_qty VARCHAR(100)",
				`  DECLARE v_n, v_o, v_k, v_item, v_supply, v_qty INTEGER;
  DECLARE v_w_tax, v_d_tax, v_discount DECIMAL(4,4);
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_dist CHAR(24);`, `  SET v_n = LENGTH(p_items) - LENGTH(REPLACE(p_items, ',', '')) + 1;
  SELECT w_tax, c_discount, c_last, c_credit INTO v_w_tax, v_discount, v_last, v_credit FROM warehouse, customer
    WHERE w_id = p_w AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_next_o_id - 1, d_tax INTO v_o, v_d_tax FROM district WHERE d_w_id = p_w AND d_id = p_d;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (v_o, p_d, p_w, p_c, `+now+`, NULL, v_n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
  SET v_k = 1;
  WHILE v_k <= v_n DO
    SET v_item = `+field("p_items", "v_k")+`, v_supply = `+field("p_supply", "v_k")+`, v_qty = `+field("p_qty", "v_k")+`;
    SET v_price = (SELECT i_price FROM item WHERE i_id = v_item);
    IF v_price IS NULL THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '`+unusedItem+`'; END IF;
    UPDATE stock SET s_quantity = CASE WHEN s_quantity >= v_qty + 10 THEN s_quantity - v_qty ELSE s_quantity - v_qty + 91 END,
        s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN v_supply = p_w THEN 0 ELSE 1 END
      WHERE s_w_id = v_supply AND s_i_id = v_item;
    IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no stock row of an order line'; END IF;
    SET v_dist = (SELECT `+dist.String()+` FROM stock WHERE s_w_id = v_supply AND s_i_id = v_item);
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o, p_d, p_w, v_k, v_item, v_supply, NULL, v_qty, v_qty * v_price, v_dist);
    SET v_k = v_k + 1;
  END WHILE;`, "v_o"),
			proc("payment", "p_w INTEGER, p_d INTEGER, p_cw INTEGER, p_cd INTEGER, p_c INTEGER, p_last VARCHAR(16), p_amount DECIMAL(6,2)",
				`  DECLARE v_c INTEGER DEFAULT p_c;
  DECLARE v_n INTEGER;
  DECLARE v_wname, v_dname VARCHAR(10);`, `  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
  SET v_wname = (SELECT w_name FROM warehouse WHERE w_id = p_w);
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
  SET v_dname = (SELECT d_name FROM district WHERE d_w_id = p_w AND d_id = p_d);
`+customer+`
  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount, c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC' THEN SUBSTR(CONCAT(v_c, ' ', p_cd, ' ', p_cw, ' ', p_d, ' ', p_w, ' ', p_amount, ' | ', c_data), 1, 500) ELSE c_data END
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer of the payment'; END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (v_c, p_cd, p_cw, p_d, p_w, `+now+`, p_amount, CONCAT(v_wname, '    ', v_dname));`, "v_c"),
			proc("order_status", "p_cw INTEGER, p_cd INTEGER, p_c INTEGER, p_last VARCHAR(16)",
				`  DECLARE v_c INTEGER DEFAULT p_c;
  DECLARE v_n, v_o, v_carrier INTEGER;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first, v_clast VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_entry DATETIME(6);`, customer+`
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_clast FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
  SELECT o_id, o_carrier_id, o_entry_d INTO v_o, v_carrier, v_entry FROM orders WHERE o_w_id = p_cw AND o_d_id = p_cd AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
  SET v_n = (SELECT count(*) FROM (SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = p_cw AND ol_d_id = p_cd AND ol_o_id = v_o) AS l);`, "v_n"),
			proc("delivery", "p_w INTEGER, p_carrier INTEGER", `  DECLARE v_d, v_o, v_c INTEGER;
  DECLARE v_done INTEGER DEFAULT 0;`, `  SET v_d = 1;
  WHILE v_d <= 10 DO
    SET v_o = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d);
    IF v_o IS NOT NULL THEN
      DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
      IF ROW_COUNT() > 0 THEN -- else delivered by another terminal meanwhile
        UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
        SET v_c = (SELECT o_c_id FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o);
        UPDATE order_line SET ol_delivery_d = `+now+` WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
        UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o),
            c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
        IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer of a delivered order'; END IF;
        SET v_done = v_done + 1;
      END IF;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;`, "v_done"),
			proc("stock_level", "p_w INTEGER, p_d INTEGER, p_threshold INTEGER", `  DECLARE v_next, v_low INTEGER;`, `  SET v_next = (SELECT d_next_o_id FROM district WHERE d_w_id = p_w AND d_id = p_d);
  SET v_low = (SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20 AND s_quantity < p_threshold);`, "v_low"),
		}
		call := func(name string, n int) string {
			return "CALL " + procPrefix + name + "(" + list(n, 1, 1, "$%d", ", ") + ")"
		}
		p.newOrder, p.payment, p.orderStatus, p.delivery, p.stockLevel = call("new_order", 7), call("payment", 7), call("order_status", 4), call("delivery", 2), call("stock_level", 3)
	default:
		return p, fmt.Errorf("--implementation procedures: %s has no stored procedures txnbench can make: choose batched or statements", name)
	}
	p.newOrder = workload.OpTag(opNewOrder) + p.newOrder
	p.payment = workload.OpTag(opPayment) + p.payment
	p.orderStatus = workload.OpTag(opOrderStatus) + p.orderStatus
	p.delivery = workload.OpTag(opDelivery) + p.delivery
	p.stockLevel = workload.OpTag(opStockLevel) + p.stockLevel
	return p, nil
}

// createProcs makes (or replaces) the procedures of --implementation
// procedures, on tables txnbench made (after Prepare), once they are there.
func (w *Workload) createProcs(ctx context.Context, c target.Conn, d target.Dialect) error {
	if w.implementation != implProcedures {
		return nil
	}
	p, err := newProcs(d.Name, d.Caps)
	if err != nil {
		return err
	}
	for _, q := range p.create {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating the TPC-C procedures: %w", err)
		}
	}
	w.procs = p
	return nil
}

// csv writes the ints of each line that field picks, comma-separated, into
// buf.
func (c *client) csv(buf []byte, field func(line) int) []byte {
	buf = buf[:0]
	for k, l := range c.lines {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(field(l)), 10)
	}
	return buf
}

// lastOrEmpty is the customer's last name when chosen by it, else "".
func (c *client) lastOrEmpty() string {
	if c.byName {
		return c.last
	}
	return ""
}

// newOrderProc is the New-Order transaction as one call: its items,
// supplying warehouses and quantities travel as lists.
func (c *client) newOrderProc(ctx context.Context, conn target.Conn) error {
	items := string(c.csv(c.buf[:0], func(l line) int { return l.item }))
	supply := string(c.csv(c.buf[:0], func(l line) int { return l.supply }))
	qty := string(c.csv(c.buf[:0], func(l line) int { return l.quantity }))
	var oid int64
	err := target.QueryRow(ctx, conn, c.w.procs.newOrder, []any{c.home, c.d, c.cid, c.allLocal, items, supply, qty}, &oid)
	if c.rollback && failed(err, unusedItem) {
		c.w.rollbacks.Add(1) // rolled back by the procedure (clause 2.4.2.3)
		return nil
	}
	return c.committed(err, 0, &c.w.newOrders, 1)
}

func (c *client) paymentProc(ctx context.Context, conn target.Conn) error {
	var cid int64
	err := target.QueryRow(ctx, conn, c.w.procs.payment, []any{c.home, c.d, c.cw, c.cd, c.cid, c.lastOrEmpty(), float64(c.amountCents) / 100}, &cid)
	return c.committed(err, c.amountCents, &c.w.paidCents, c.amountCents)
}

func (c *client) orderStatusProc(ctx context.Context, conn target.Conn) error {
	var n int64
	if err := target.QueryRow(ctx, conn, c.w.procs.orderStatus, []any{c.cw, c.cd, c.cid, c.lastOrEmpty()}, &n); err != nil {
		return err
	}
	if n < minOrderLines {
		return fmt.Errorf("the last order of a customer of district %d, warehouse %d has %d order lines", c.cd, c.cw, n)
	}
	return nil
}

func (c *client) deliveryProc(ctx context.Context, conn target.Conn) error {
	var n int64
	err := target.QueryRow(ctx, conn, c.w.procs.delivery, []any{c.home, c.carrier}, &n)
	return c.committed(err, 0, &c.w.deliveries, 1)
}

func (c *client) stockLevelProc(ctx context.Context, conn target.Conn) error {
	var low int64
	return target.QueryRow(ctx, conn, c.w.procs.stockLevel, []any{c.home, c.district, c.threshold}, &low)
}

// errNoProcedures refuses --implementation procedures on SQLite.
var errNoProcedures = errors.New("--implementation procedures: SQLite has no stored procedures: choose batched or statements, or give --db a PostgreSQL or MariaDB")

var _ workload.EmbeddedChecker = (*Workload)(nil)

// CheckEmbedded refuses --implementation procedures on an embedded
// database, before anything starts.
func (w *Workload) CheckEmbedded() error {
	if w.implementation == implProcedures {
		return errNoProcedures
	}
	return nil
}
