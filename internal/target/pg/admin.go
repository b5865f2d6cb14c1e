package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/target"
)

func init() { pooler.RegisterConsole(console{}) }

// console reads a pooler's admin console for package pooler.
type console struct{}

// Rows is AdminRows.
func (console) Rows(ctx context.Context, url, sql string) ([]map[string]string, error) {
	return AdminRows(ctx, url, sql)
}

// AdminWait bounds each AdminRows call, connecting included: it is
// pooler.ConsoleWait.
const AdminWait = pooler.ConsoleWait

// AdminRows runs a statement of a pooler's admin console (PgBouncer's SHOW
// STATS, SHOW POOLS: simple protocol only) and returns its rows as text.
// It gives up after AdminWait, or earlier with ctx; a console that did not
// answer in time is an error of class timeout (target.Classify).
func AdminRows(ctx context.Context, url, sql string) (rows []map[string]string, err error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, AdminWait)
	defer cancel()
	defer func() {
		if err != nil && ctx.Err() != nil && parent.Err() == nil {
			err = fmt.Errorf("no answer to %s within %s: %w", sql, AdminWait, ctx.Err())
		}
	}()
	return adminRows(ctx, url, sql)
}

func adminRows(ctx context.Context, url, sql string) ([]map[string]string, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", target.ErrMalformedURL, target.MaskURL(url), err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, target.ConnectError(url, refusedAuth(serverFirst(err)))
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []map[string]string
	for rows.Next() {
		vals := rows.RawValues() // the simple protocol's values are text
		m := make(map[string]string, len(vals))
		for i, f := range rows.FieldDescriptions() {
			m[f.Name] = string(vals[i])
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
