package connectoverhead

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Table names: prefixed so they live beside other workloads' tables.
const (
	tableUsers  = "co_users"
	tableOrders = "co_orders"
	tableItems  = "co_order_items"
)

// complexLimit is how many users the complex query returns at most.
const complexLimit = 10

// Order statuses; cancelled orders bring no revenue.
const statusCancelled = "cancelled"

// schema is the workload's SQL on one dialect. Only the initial load
// differs between dialects; the queries are the same everywhere.
type schema struct {
	arrays                    bool // the load sends typed arrays (else JSON)
	tables                    workload.Schema
	ddl, drop                 []string
	analyze                   []string
	insertUsers, insertOrders string
	insertItems               string

	select1, point, complex string

	totals, userRange, badTotals string
}

// newSchema builds the SQL for a dialect with capabilities c. Ids are
// INTEGER PRIMARY KEY, which on SQLite is the rowid itself.
func newSchema(c target.Capabilities) schema {
	s := schema{arrays: c.ArrayParams}
	ts, key := c.TimestampType, c.KeyTextType()
	s.ddl = []string{
		fmt.Sprintf("CREATE TABLE %s (\n  id INTEGER PRIMARY KEY,\n  email %s NOT NULL,\n  name TEXT NOT NULL,\n  region %s NOT NULL,\n  status TEXT NOT NULL,\n  created_at %s NOT NULL\n)", tableUsers, key, key, ts),
		fmt.Sprintf("CREATE UNIQUE INDEX %s_email ON %s (email)", tableUsers, tableUsers),
		fmt.Sprintf("CREATE INDEX %s_region ON %s (region)", tableUsers, tableUsers),
		fmt.Sprintf("CREATE TABLE %s (\n  id INTEGER PRIMARY KEY,\n  user_id INTEGER NOT NULL REFERENCES %s (id),\n  status TEXT NOT NULL,\n  ordered_at %s NOT NULL,\n  total_cents INTEGER NOT NULL\n)", tableOrders, tableUsers, ts),
		fmt.Sprintf("CREATE INDEX %s_user ON %s (user_id)", tableOrders, tableOrders),
		fmt.Sprintf("CREATE TABLE %s (\n  id INTEGER PRIMARY KEY,\n  order_id INTEGER NOT NULL REFERENCES %s (id),\n  product_id INTEGER NOT NULL,\n  quantity INTEGER NOT NULL,\n  price_cents INTEGER NOT NULL\n)", tableItems, tableOrders),
		fmt.Sprintf("CREATE INDEX %s_order ON %s (order_id)", tableItems, tableItems),
	}
	s.tables = workload.Schema{Data: dataName, What: "connect-overhead tables", Names: []string{tableItems, tableOrders, tableUsers}}
	for _, t := range s.tables.Names {
		s.drop = append(s.drop, "DROP TABLE IF EXISTS "+t)
	}
	// Fresh statistics so the planner sees the loaded data at once.
	for _, t := range []string{tableUsers, tableOrders, tableItems} {
		s.analyze = append(s.analyze, c.AnalyzeSQL(t))
	}

	if c.ArrayParams {
		// Typed arrays that unnest() turns into rows.
		s.insertUsers = fmt.Sprintf("INSERT INTO %s (id, email, name, region, status, created_at) SELECT * FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::text[], $6::%s[])", tableUsers, ts)
		s.insertOrders = fmt.Sprintf("INSERT INTO %s (id, user_id, status, ordered_at, total_cents) SELECT * FROM unnest($1::integer[], $2::integer[], $3::text[], $4::%s[], $5::integer[])", tableOrders, ts)
		s.insertItems = fmt.Sprintf("INSERT INTO %s (id, order_id, product_id, quantity, price_cents) SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::integer[], $5::integer[])", tableItems)
	} else if c.JSONTable {
		// One JSON array of rows that JSON_TABLE expands; the timestamps
		// in the JSON end in Z, which DATETIME does not read.
		rows := func(cols ...string) string {
			var b strings.Builder
			for i, c := range cols {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "c%d %s PATH '$[%d]'", i, c, i)
			}
			return "JSON_TABLE($1, '$[*]' COLUMNS (" + b.String() + ")) AS j"
		}
		stamp := func(col string) string { return "STR_TO_DATE(" + col + ", '%Y-%m-%dT%H:%i:%s.%fZ')" }
		s.insertUsers = fmt.Sprintf("INSERT INTO %s (id, email, name, region, status, created_at) SELECT j.c0, j.c1, j.c2, j.c3, j.c4, %s FROM %s", tableUsers, stamp("j.c5"), rows("BIGINT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT"))
		s.insertOrders = fmt.Sprintf("INSERT INTO %s (id, user_id, status, ordered_at, total_cents) SELECT j.c0, j.c1, j.c2, %s, j.c4 FROM %s", tableOrders, stamp("j.c3"), rows("BIGINT", "BIGINT", "TEXT", "TEXT", "BIGINT"))
		s.insertItems = fmt.Sprintf("INSERT INTO %s (id, order_id, product_id, quantity, price_cents) SELECT j.c0, j.c1, j.c2, j.c3, j.c4 FROM %s", tableItems, rows("BIGINT", "BIGINT", "BIGINT", "BIGINT", "BIGINT"))
	} else {
		// One JSON array of rows that json_each() expands.
		s.insertUsers = fmt.Sprintf("INSERT INTO %s (id, email, name, region, status, created_at) SELECT j.value->>0, j.value->>1, j.value->>2, j.value->>3, j.value->>4, j.value->>5 FROM json_each($1) AS j", tableUsers)
		s.insertOrders = fmt.Sprintf("INSERT INTO %s (id, user_id, status, ordered_at, total_cents) SELECT j.value->>0, j.value->>1, j.value->>2, j.value->>3, j.value->>4 FROM json_each($1) AS j", tableOrders)
		s.insertItems = fmt.Sprintf("INSERT INTO %s (id, order_id, product_id, quantity, price_cents) SELECT j.value->>0, j.value->>1, j.value->>2, j.value->>3, j.value->>4 FROM json_each($1) AS j", tableItems)
	}

	// The op's queries carry its tag, for the server's statement statistics.
	tag := workload.OpTag(opQuery)
	s.select1 = tag + "SELECT 1"
	s.point = tag + fmt.Sprintf("SELECT id, email, name, region, status, created_at FROM %s WHERE id = $1", tableUsers)
	s.complex = tag + fmt.Sprintf("SELECT u.id, u.name, count(DISTINCT o.id) AS orders, sum(i.quantity) AS items, sum(i.quantity * i.price_cents) AS revenue_cents"+
		" FROM %s AS u JOIN %s AS o ON o.user_id = u.id JOIN %s AS i ON i.order_id = o.id"+
		" WHERE u.region = $1 AND o.status <> '%s'"+
		" GROUP BY u.id, u.name ORDER BY revenue_cents DESC, u.id LIMIT %d",
		tableUsers, tableOrders, tableItems, statusCancelled, complexLimit)

	s.totals = fmt.Sprintf("SELECT (SELECT count(*) FROM %s), (SELECT count(*) FROM %s), (SELECT coalesce(sum(total_cents), 0) FROM %s), (SELECT count(*) FROM %s), (SELECT coalesce(sum(quantity * price_cents), 0) FROM %s)",
		tableUsers, tableOrders, tableOrders, tableItems, tableItems)
	s.userRange = fmt.Sprintf("SELECT coalesce(min(id), 0), coalesce(max(id), 0) FROM %s", tableUsers)
	s.badTotals = fmt.Sprintf("SELECT count(*) FROM %s AS o LEFT JOIN (SELECT order_id, sum(quantity * price_cents) AS cents FROM %s GROUP BY order_id) AS i ON i.order_id = o.id WHERE i.cents IS NULL OR i.cents <> o.total_cents",
		tableOrders, tableItems)
	return s
}

// query is the SQL of a query kind.
func (s *schema) query(kind string) string {
	switch kind {
	case kindSelect1:
		return s.select1
	case kindComplex:
		return s.complex
	}
	return s.point
}
