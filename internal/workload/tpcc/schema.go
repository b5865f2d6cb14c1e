package tpcc

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// tables are the specification's tables, in the order they are loaded;
// nurandTable keeps the load's NURand constants (clause 2.1.6).
var tables = []string{"item", "warehouse", "district", "customer", "history", "orders", "new_order", "order_line", "stock"}

const nurandTable = "tpcc_nurand"

// schema is the workload's SQL on one dialect. Only the timestamp type and
// the expression for the current time differ between dialects.
type schema struct {
	tables             workload.Schema
	ddl, drop, analyze []string

	// New-Order
	noWarehouse, noDistrict, noCustomer, noOrder, noNewOrder string
	noItem, noStock, noLine                                  string
	// Payment
	payWarehouse, payDistrict, payByName, payCustomer, payHistory string
	// Order-Status
	osByName, osCustomer, osOrder, osLines string
	// Delivery
	dlOldest, dlDelete, dlOrder, dlLines, dlCustomer string
	// reads holds, by the text of the UPDATE ... RETURNING statements
	// above, the read of what they return, where the dialect has no
	// RETURNING on an UPDATE: their RETURNING is then dropped (see
	// withoutReturning).
	reads map[string]string
	// Stock-Level
	slDistrict, slCount string
}

// moneyType is the type of amounts: exact decimals where the dialect has them
// (SQLite stores them as numbers, which the check compares to half a cent).
const moneyType = "NUMERIC(12,2)"

// newSchema builds the SQL for a dialect with capabilities c.
func newSchema(c target.Capabilities) schema {
	ts, now := c.TimestampType, c.Now
	concat := "CAST($5 AS TEXT) || c_data"
	if c.ConcatFunction {
		concat = "CONCAT($5, c_data)"
	}
	var s schema
	s.ddl = []string{
		`CREATE TABLE warehouse (
  w_id INTEGER NOT NULL PRIMARY KEY,
  w_name VARCHAR(10) NOT NULL,
  w_street_1 VARCHAR(20) NOT NULL,
  w_street_2 VARCHAR(20) NOT NULL,
  w_city VARCHAR(20) NOT NULL,
  w_state CHAR(2) NOT NULL,
  w_zip CHAR(9) NOT NULL,
  w_tax NUMERIC(4,4) NOT NULL,
  w_ytd ` + moneyType + ` NOT NULL
)`,
		`CREATE TABLE district (
  d_id INTEGER NOT NULL,
  d_w_id INTEGER NOT NULL,
  d_name VARCHAR(10) NOT NULL,
  d_street_1 VARCHAR(20) NOT NULL,
  d_street_2 VARCHAR(20) NOT NULL,
  d_city VARCHAR(20) NOT NULL,
  d_state CHAR(2) NOT NULL,
  d_zip CHAR(9) NOT NULL,
  d_tax NUMERIC(4,4) NOT NULL,
  d_ytd ` + moneyType + ` NOT NULL,
  d_next_o_id INTEGER NOT NULL,
  PRIMARY KEY (d_w_id, d_id)
)`,
		`CREATE TABLE customer (
  c_id INTEGER NOT NULL,
  c_d_id INTEGER NOT NULL,
  c_w_id INTEGER NOT NULL,
  c_first VARCHAR(16) NOT NULL,
  c_middle CHAR(2) NOT NULL,
  c_last VARCHAR(16) NOT NULL,
  c_street_1 VARCHAR(20) NOT NULL,
  c_street_2 VARCHAR(20) NOT NULL,
  c_city VARCHAR(20) NOT NULL,
  c_state CHAR(2) NOT NULL,
  c_zip CHAR(9) NOT NULL,
  c_phone CHAR(16) NOT NULL,
  c_since ` + ts + ` NOT NULL,
  c_credit CHAR(2) NOT NULL,
  c_credit_lim ` + moneyType + ` NOT NULL,
  c_discount NUMERIC(4,4) NOT NULL,
  c_balance ` + moneyType + ` NOT NULL,
  c_ytd_payment ` + moneyType + ` NOT NULL,
  c_payment_cnt INTEGER NOT NULL,
  c_delivery_cnt INTEGER NOT NULL,
  c_data VARCHAR(500) NOT NULL,
  PRIMARY KEY (c_w_id, c_d_id, c_id)
)`,
		`CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)`,
		`CREATE TABLE history (
  h_c_id INTEGER NOT NULL,
  h_c_d_id INTEGER NOT NULL,
  h_c_w_id INTEGER NOT NULL,
  h_d_id INTEGER NOT NULL,
  h_w_id INTEGER NOT NULL,
  h_date ` + ts + ` NOT NULL,
  h_amount NUMERIC(6,2) NOT NULL,
  h_data VARCHAR(24) NOT NULL
)`,
		`CREATE INDEX history_customer ON history (h_c_w_id, h_c_d_id, h_c_id)`,
		`CREATE TABLE new_order (
  no_o_id INTEGER NOT NULL,
  no_d_id INTEGER NOT NULL,
  no_w_id INTEGER NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
)`,
		`CREATE TABLE orders (
  o_id INTEGER NOT NULL,
  o_d_id INTEGER NOT NULL,
  o_w_id INTEGER NOT NULL,
  o_c_id INTEGER NOT NULL,
  o_entry_d ` + ts + ` NOT NULL,
  o_carrier_id INTEGER,
  o_ol_cnt INTEGER NOT NULL,
  o_all_local INTEGER NOT NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id)
)`,
		`CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)`,
		`CREATE TABLE order_line (
  ol_o_id INTEGER NOT NULL,
  ol_d_id INTEGER NOT NULL,
  ol_w_id INTEGER NOT NULL,
  ol_number INTEGER NOT NULL,
  ol_i_id INTEGER NOT NULL,
  ol_supply_w_id INTEGER NOT NULL,
  ol_delivery_d ` + ts + `,
  ol_quantity INTEGER NOT NULL,
  ol_amount NUMERIC(6,2) NOT NULL,
  ol_dist_info CHAR(24) NOT NULL,
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
)`,
		`CREATE TABLE item (
  i_id INTEGER NOT NULL PRIMARY KEY,
  i_im_id INTEGER NOT NULL,
  i_name VARCHAR(24) NOT NULL,
  i_price NUMERIC(5,2) NOT NULL,
  i_data VARCHAR(50) NOT NULL
)`,
		`CREATE TABLE stock (
  s_i_id INTEGER NOT NULL,
  s_w_id INTEGER NOT NULL,
  s_quantity INTEGER NOT NULL,
` + distColumns("  ", " CHAR(24) NOT NULL,\n") + `  s_ytd INTEGER NOT NULL,
  s_order_cnt INTEGER NOT NULL,
  s_remote_cnt INTEGER NOT NULL,
  s_data VARCHAR(50) NOT NULL,
  PRIMARY KEY (s_w_id, s_i_id)
)`,
		"CREATE TABLE " + nurandTable + " (c_last INTEGER NOT NULL, c_id INTEGER NOT NULL, ol_i_id INTEGER NOT NULL)",
	}
	s.tables = workload.Schema{Data: dataName, What: "TPC-C tables", Names: append(append([]string{}, tables...), nurandTable)}
	for _, t := range s.tables.Names {
		s.drop = append(s.drop, "DROP TABLE IF EXISTS "+t)
		s.analyze = append(s.analyze, c.AnalyzeSQL(t))
	}

	tag := workload.OpTag(opNewOrder)
	s.noWarehouse = tag + "SELECT w_tax FROM warehouse WHERE w_id = $1"
	s.noDistrict = tag + "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id - 1, d_tax"
	s.noCustomer = tag + "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"
	s.noOrder = tag + "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, " + now + ", NULL, $5, $6)"
	s.noNewOrder = tag + "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)"
	s.noItem = tag + "SELECT i_price, i_name, i_data FROM item WHERE i_id = $1"
	// One statement reads and updates the stock row (clause 2.4.2.2): the
	// quantity drops by the ordered quantity, or is refilled by 91 when it
	// would fall under 10. $5 is the district's s_dist_xx column, chosen
	// by the client among ten statements.
	s.noStock = tag + "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END," +
		" s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4" +
		" WHERE s_w_id = $1 AND s_i_id = $2 RETURNING s_quantity, s_data, s_dist_%02d"
	s.noLine = tag + "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8, $9)"

	tag = workload.OpTag(opPayment)
	s.payWarehouse = tag + "UPDATE warehouse SET w_ytd = w_ytd + $2 WHERE w_id = $1 RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip"
	s.payDistrict = tag + "UPDATE district SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip"
	s.payByName = tag + byName
	// Bad credit customers get the payment's details in front of c_data,
	// kept to 500 characters (clause 2.5.2.2).
	s.payCustomer = tag + "UPDATE customer SET c_balance = c_balance - $4, c_ytd_payment = c_ytd_payment + $4, c_payment_cnt = c_payment_cnt + 1," +
		" c_data = CASE WHEN c_credit = 'BC' THEN substr(" + concat + ", 1, 500) ELSE c_data END" +
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3" +
		" RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance"
	s.payHistory = tag + "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, " + now + ", $6, $7)"

	tag = workload.OpTag(opOrderStatus)
	s.osByName = tag + byName
	s.osCustomer = tag + "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"
	s.osOrder = tag + "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1"
	s.osLines = tag + "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3"

	tag = workload.OpTag(opDelivery)
	s.dlOldest = tag + "SELECT coalesce(min(no_o_id), 0) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2"
	s.dlDelete = tag + "DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3"
	s.dlOrder = tag + "UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3 RETURNING o_c_id"
	s.dlLines = tag + "UPDATE order_line SET ol_delivery_d = " + now + " WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3"
	// The sum is taken by the database, so amounts stay exact decimals.
	s.dlCustomer = tag + "UPDATE customer SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3)," +
		" c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $4"
	if !c.UpdateReturning {
		s.reads = map[string]string{}
		for _, q := range []*string{&s.noDistrict, &s.noStock, &s.payWarehouse, &s.payDistrict, &s.payCustomer, &s.dlOrder} {
			var read string
			*q, read = withoutReturning(*q)
			s.reads[*q] = read
		}
	}

	tag = workload.OpTag(opStockLevel)
	s.slDistrict = tag + "SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2"
	s.slCount = tag + "SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id" +
		" WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $3 - 20 AND s_quantity < $4"
	return s
}

// byName finds the customers of a district with a last name, ordered by
// first name (clause 2.5.2.2): the client takes the middle one.
const byName = "SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first"

// distColumns lists s_dist_01 .. s_dist_10, each between prefix and suffix.
func distColumns(prefix, suffix string) string {
	var b strings.Builder
	for d := 1; d <= districts; d++ {
		fmt.Fprintf(&b, "%ss_dist_%02d%s", prefix, d, suffix)
	}
	return b.String()
}

// stockStatement is the New-Order's stock update returning district d's
// s_dist_xx, and where the dialect has no UPDATE ... RETURNING the read of
// what it returns.
func (s *schema) stockStatement(d int) (update, read string) {
	r, ok := s.reads[s.noStock]
	if !ok {
		return fmt.Sprintf(s.noStock, d), ""
	}
	return s.noStock, fmt.Sprintf(r, d) // the column is the read's
}

// withoutReturning splits "TAG UPDATE table SET ... WHERE cond RETURNING
// cols" into the update without its RETURNING and "TAG SELECT cols FROM
// table WHERE cond", which, run after the update in its transaction, reads
// the row as the update left it (the update's row lock holds it).
func withoutReturning(q string) (update, read string) {
	u := strings.Index(q, "UPDATE ")
	tag, rest := q[:u], q[u+len("UPDATE "):]
	table := rest[:strings.IndexByte(rest, ' ')]
	i := strings.LastIndex(q, " RETURNING ")
	update = q[:i]
	return update, tag + "SELECT " + q[i+len(" RETURNING "):] + " FROM " + table + update[strings.LastIndex(update, " WHERE "):]
}

// read is the read of what update returns where the dialect has no
// UPDATE ... RETURNING, or "".
func (s *schema) read(update string) string { return s.reads[update] }
