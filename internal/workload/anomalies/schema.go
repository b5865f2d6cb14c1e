package anomalies

import (
	"fmt"

	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// schema is a model's table and statements on one dialect. Keys that were
// never written have no row: a read finds none (an empty list, a register
// never written), and a write inserts the row or updates it, in one
// statement (an upsert), so a write never depends on a row existing.
type schema struct {
	tables      workload.Schema
	ddl, drop   []string
	clear       string // deletes a run's key range: $1 <= k < $2
	read, write string
}

// Table names, one a model, so both workloads can share a database.
const (
	tableLists     = "anomaly_lists"
	tableRegisters = "anomaly_registers"
)

func newSchema(m history.Model, c target.Capabilities) schema {
	table, col, typ, what := tableLists, "vals", "TEXT", "list-append table"
	if m == history.Register {
		table, col, typ, what = tableRegisters, "val", "BIGINT", "rw-register table"
	}
	s := schema{
		tables: workload.Schema{Data: m.String(), What: what, Names: []string{table}},
		ddl:    []string{fmt.Sprintf("CREATE TABLE %s (\n  k BIGINT PRIMARY KEY,\n  %s %s NOT NULL\n)", table, col, typ)},
		drop:   []string{"DROP TABLE IF EXISTS " + table},
		clear:  "DELETE FROM " + table + " WHERE k >= $1 AND k < $2",
	}
	tag := workload.OpTag(opTxn)
	s.read = tag + fmt.Sprintf("SELECT %s FROM %s WHERE k = $1", col, table)
	// A list's values are one text, each appended as ",V"; a register
	// is set to its value.
	set, mysqlSet := "excluded."+col, "VALUES("+col+")"
	if m == history.ListAppend {
		set, mysqlSet = table+"."+col+" || excluded."+col, "CONCAT("+col+", VALUES("+col+"))"
	}
	if c.ConcatFunction { // the MySQL family: no ON CONFLICT
		s.write = tag + fmt.Sprintf("INSERT INTO %s (k, %s) VALUES ($1, $2) ON DUPLICATE KEY UPDATE %s = %s", table, col, col, mysqlSet)
	} else {
		s.write = tag + fmt.Sprintf("INSERT INTO %s (k, %s) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET %s = %s", table, col, col, set)
	}
	return s
}
