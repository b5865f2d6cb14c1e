package setup

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// Scale reads the scale of an initialised database as pgbench's run mode
// does: the number of rows in pgbench_branches. Without the table the
// *Error says so and hints at `pgbench -i`.
func Scale(ctx context.Context, c target.Conn) (int, error) {
	const q = "select count(*) from pgbench_branches"
	var n int64
	err := target.QueryRow(ctx, c, q, nil, &n)
	if err != nil {
		e := &Error{Msg: "could not count number of branches: " + serverText(err, q), Err: err}
		if target.IsUndefinedTable(err) {
			e.Hint = initHint(ctx, c)
		}
		return 0, e
	}
	if n > 1<<31-1 {
		return 0, &Error{Msg: fmt.Sprintf("invalid count(*) from pgbench_branches: \"%d\"", n)}
	}
	return int(n), nil
}

// partitionQuery is pgbench's: the partitioning of the first
// pgbench_accounts on the search path and its number of partitions.
const partitionQuery = "select o.n, p.partstrat, pg_catalog.count(i.inhparent) " +
	"from pg_catalog.pg_class as c " +
	"join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) " +
	"cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) " +
	"left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) " +
	"left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) " +
	"where c.relname = 'pgbench_accounts' and o.n is not null " +
	"group by 1, 2 " +
	"order by 1 asc " +
	"limit 1"

// Partitioning reads how pgbench_accounts is partitioned, as pgbench's
// run mode does for its header ("partition method: range",
// "partitions: 3"): method is "none", "range" or "hash". Where the
// catalog query fails (SQLite, old servers) it is "none" with 0
// partitions, as pgbench assumes.
func Partitioning(ctx context.Context, c target.Conn) (partitions int, method string, err error) {
	rows, err := c.Query(ctx, partitionQuery)
	if err != nil {
		return 0, "none", nil
	}
	defer rows.Close()
	found := false
	var pos int64
	var strat *string
	var count int64
	for rows.Next() {
		if err := rows.Scan(&pos, &strat, &count); err != nil {
			return 0, "none", nil
		}
		found = true
	}
	if rows.Err() != nil {
		return 0, "none", nil
	}
	if !found {
		return 0, "", &Error{Msg: "no pgbench_accounts table found in \"search_path\"", Hint: initHint(ctx, c)}
	}
	method = "none"
	if strat != nil {
		switch *strat {
		case "r":
			method = "range"
		case "h":
			method = "hash"
		default:
			return 0, "", &Error{Msg: fmt.Sprintf("unexpected partition method: \"%s\"", *strat)}
		}
	}
	return int(count), method, nil
}

// initHint is pgbench's hint naming the database to initialise: the
// current database on a server, the file on SQLite.
func initHint(ctx context.Context, c target.Conn) string {
	var db string
	if target.QueryRow(ctx, c, "select current_database()", nil, &db) != nil {
		if target.QueryRow(ctx, c, "select file from pragma_database_list where name = 'main'", nil, &db) != nil {
			db = "?"
		}
	}
	return "Perhaps you need to do initialization (\"pgbench -i\") in database \"" + db + "\"."
}
