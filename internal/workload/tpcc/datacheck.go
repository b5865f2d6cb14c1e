package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

var _ workload.DataChecker = (*Workload)(nil)

// prefixTable is the table of each of the specification's column
// prefixes (clause 1.3: w_ columns are WAREHOUSE's, ol_ ORDER-LINE's, ...).
var prefixTable = map[string]string{"w": "warehouse", "d": "district", "c": "customer", "h": "history",
	"no": "new_order", "o": "orders", "ol": "order_line", "i": "item", "s": "stock"}

// needs lists the columns sql reads, as "table.column", in order: every
// identifier with one of the specification's column prefixes.
func needs(sql string) []string {
	var cols []string
	for _, tok := range strings.FieldsFunc(sql, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		prefix, _, ok := strings.Cut(tok, "_")
		if t, known := prefixTable[prefix]; ok && known && !slices.Contains(cols, t+"."+tok) {
			cols = append(cols, t+"."+tok)
		}
	}
	slices.Sort(cols)
	return cols
}

// CheckData runs the twelve consistency conditions on TPC-C tables that
// another tool may have loaded (go-tpc's, HammerDB's, BenchBase's: the
// specification's table and column names), each query in a read-only
// transaction of its own. A condition whose tables or columns are not
// there is not evaluated, and its line says which; condition 11 holds only
// for data no New-Order has changed yet, and is evaluated only then. The
// money's line needs a run's books, so there is none.
func (w *Workload) CheckData(ctx context.Context, c target.Conn, caps target.Capabilities) (result.Check, error) {
	var ch result.Check
	read := func(sql string, args []any, dest ...any) error {
		return target.ReadOnly(ctx, c, caps, func() error { return target.QueryRow(ctx, c, sql, args, dest...) })
	}
	missing := map[string]string{} // "table" or "table.column" -> why it cannot be read
	var found []string
	for _, t := range tables {
		err := target.ReadOnly(ctx, c, caps, func() error { return probe(ctx, c, "SELECT 1 FROM "+t+" WHERE 1 = 0") })
		switch {
		case target.IsUndefinedTable(err):
			missing[t] = "there is no table " + t
		case err != nil:
			return ch, fmt.Errorf("looking for the TPC-C tables: %w", err)
		default:
			found = append(found, t)
		}
	}
	if !slices.Contains(found, "warehouse") || !slices.Contains(found, "district") {
		return ch, fmt.Errorf("the database has no TPC-C tables (no warehouse or district table; found %s): %w", orNone(found), workload.ErrNoTables)
	}
	cannot := func(sql string) string {
		for _, col := range needs(sql) {
			t, name, _ := strings.Cut(col, ".")
			if why, ok := missing[t]; ok {
				return why
			}
			why, known := missing[col]
			if !known {
				err := target.ReadOnly(ctx, c, caps, func() error { return probe(ctx, c, "SELECT "+name+" FROM "+t+" WHERE 1 = 0") })
				if err != nil {
					why = fmt.Sprintf("%s has no column %s (%s)", t, name, errclass.OneLine(target.Message(err)))
				}
				missing[col] = why
			}
			if why != "" {
				return why
			}
		}
		return ""
	}
	evaluated := 0
	for _, cond := range conditions {
		why := cannot(cond.sql)
		if cond.loadOnly && why == "" {
			why = cannot(asLoadedSQL)
		}
		if why != "" {
			ch.Add(cond.name, true, "not evaluated: %s", why)
			continue
		}
		var args []any
		if cond.loadOnly {
			delivered, why, err := w.deliveredAtLoad(read)
			if err != nil {
				return ch, fmt.Errorf("checking consistency condition %s: %w", cond.name, err)
			}
			if why != "" {
				ch.Add(cond.name, true, "not evaluated: %s", why)
				continue
			}
			args = []any{delivered}
		}
		var bad int64
		if err := read(cond.sql, args, &bad); err != nil {
			return ch, fmt.Errorf("checking consistency condition %s: %w", cond.name, err)
		}
		ch.Add(cond.name, bad == 0, "%d %s break it", bad, cond.what)
		evaluated++
	}
	if evaluated == 0 {
		ch.NotChecked = "no consistency condition could be evaluated on these tables"
		ch.OK = false
	}
	return ch, nil
}

// deliveredAtLoad is condition 11's count of delivered orders per
// district, 70% of its customers (2,100 of 3,000), when the data is as
// loaded: every district's next order is the one after its customers'
// (clause 4.3.3.1: one order per customer). Otherwise why says that the
// condition cannot be evaluated.
func (w *Workload) deliveredAtLoad(read func(string, []any, ...any) error) (delivered int64, why string, err error) {
	var changed, customers int64
	if err := read(asLoadedSQL, nil, &changed); err != nil {
		return 0, "", err
	}
	if changed > 0 {
		return 0, fmt.Sprintf("holds only as loaded, and %d districts have taken New-Orders since (D_NEXT_O_ID - 1 is not their customers)", changed), nil
	}
	if err := read("SELECT coalesce(max(c_id), 0) FROM customer", nil, &customers); err != nil {
		return 0, "", err
	}
	return customers * 7 / 10, "", nil
}

// asLoadedSQL counts the districts whose next order is not the one after
// their customers'.
const asLoadedSQL = "SELECT count(*) FROM district LEFT JOIN (SELECT c_w_id, c_d_id, count(*) AS n FROM customer GROUP BY c_w_id, c_d_id) AS c" +
	" ON c.c_w_id = d_w_id AND c.c_d_id = d_id WHERE c.n IS NULL OR d_next_o_id - 1 <> c.n"

// probe runs a query and reads its rows, for whether it can run at all.
func probe(ctx context.Context, c target.Conn, sql string) error {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none of its nine"
	}
	return strings.Join(names, ", ")
}
