package target

import (
	"context"
	"errors"
)

// ReadOnly runs f in a transaction on c that refuses writes (a write
// fails with errclass.ReadOnly), rolled back afterwards whatever f did.
func ReadOnly(ctx context.Context, c Conn, caps Capabilities, f func() error) (err error) {
	if caps.ReadOnlyBefore == "" && caps.ReadOnlyAfter == "" {
		return errors.New("this database has no read-only transactions")
	}
	end := context.WithoutCancel(ctx)
	if caps.ReadOnlyBefore != "" {
		if _, err := c.Exec(ctx, caps.ReadOnlyBefore); err != nil {
			return err
		}
	}
	if caps.ReadOnlyUndo != "" {
		defer func() {
			if _, uerr := c.Exec(end, caps.ReadOnlyUndo); err == nil {
				err = uerr
			}
		}()
	}
	if err := c.Begin(ctx); err != nil {
		return err
	}
	defer c.Rollback(end)
	if caps.ReadOnlyAfter != "" {
		if _, err := c.Exec(ctx, caps.ReadOnlyAfter); err != nil {
			return err
		}
	}
	return f()
}
