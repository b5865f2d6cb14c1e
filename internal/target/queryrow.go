package target

import (
	"cmp"
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

// FirstColumn reads the first column of rows' current row, however many
// columns it has; a row without columns is ErrNoColumn.
func FirstColumn(rows Rows) (any, error) {
	var n int
	switch r := rows.(type) {
	case interface{ Values() ([]any, error) }: // pgx's
		v, err := r.Values()
		if err != nil || len(v) == 0 {
			return nil, cmp.Or(err, ErrNoColumn)
		}
		return v[0], nil
	case interface{ Columns() ([]string, error) }: // database/sql's
		cols, err := r.Columns()
		if err != nil {
			return nil, err
		}
		n = len(cols)
	case interface{ Unwrap() Rows }:
		return FirstColumn(r.Unwrap())
	default:
		n = 1
	}
	if n == 0 {
		return nil, ErrNoColumn
	}
	dest := make([]any, n)
	for i := range dest {
		dest[i] = new(any)
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, err
	}
	return *dest[0].(*any), nil
}

// ErrNoColumn is a row without a column to read (SELECT;).
var ErrNoColumn = errors.New("the query's rows have no column")
