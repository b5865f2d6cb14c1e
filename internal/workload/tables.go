package workload

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// TablesExist is the first step of a workload's Init: whether its tables
// are there, each probe a query that fails only when its table is missing
// ("SELECT 1 FROM t LIMIT 0"). Only "no such table" means no: any other
// error (a timeout, a permission) is returned, never taken as leave to
// recreate the schema. what names the tables in that error.
func TablesExist(ctx context.Context, c target.Conn, probe []string, what string) (bool, error) {
	for _, q := range probe {
		rows, err := c.Query(ctx, q)
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		if target.IsUndefinedTable(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("looking for the %s: %w", what, err)
		}
	}
	return true, nil
}

// CreateTables drops a workload's old tables and creates them anew, each
// statement in order: drop, then ddl. what names the tables in an error
// ("creating the schema: ...").
func CreateTables(ctx context.Context, c target.Conn, drop, ddl []string, what string) error {
	for _, q := range drop {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("dropping the old %s: %w", what, err)
		}
	}
	for _, q := range ddl {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating the %s: %w", what, err)
		}
	}
	return nil
}
