package target

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoRow is QueryRow's error for a query that returned no row.
var ErrNoRow = errors.New("no row")

// QueryRow runs q with args and scans its first row into dest; a query
// that returns no row is an ErrNoRow naming it.
func QueryRow(ctx context.Context, c Conn, q string, args []any, dest ...any) error {
	rows, err := c.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%w from %s", ErrNoRow, q)
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}
