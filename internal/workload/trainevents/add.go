package trainevents

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// add inserts this cycle's events, returning their ids, thinks, then gives
// each a PENDING status row, in one transaction.
func (c *client) add(ctx context.Context, conn target.Conn) error {
	if err := conn.Begin(ctx); err != nil {
		return err
	}
	defer conn.Rollback(ctx)
	if err := c.insertEvents(ctx, conn); err != nil {
		return err
	}
	if err := c.think(ctx); err != nil {
		return err
	}
	if err := c.insertStatus(ctx, conn); err != nil {
		return err
	}
	if err := c.commit(ctx, conn, len(c.events)); err != nil {
		return err
	}
	c.w.committedEvents.Add(int64(len(c.events)))
	return nil
}

// insertEvents inserts c.events and reads the returned ids into c.ids.
func (c *client) insertEvents(ctx context.Context, conn target.Conn) error {
	rows, err := conn.Query(ctx, c.w.sql.insertEvents, c.eventArgs()...)
	if err != nil {
		return err
	}
	if err := c.scanIDs(rows, false); err != nil {
		return err
	}
	if len(c.ids) != len(c.events) {
		return fmt.Errorf("add: inserted %d events but %d ids came back", len(c.events), len(c.ids))
	}
	return nil
}

// insertStatus gives every id in c.ids a PENDING status row.
func (c *client) insertStatus(ctx context.Context, conn target.Conn) error {
	n, err := conn.Exec(ctx, c.w.sql.insertStatus, c.idArgs()...)
	if err != nil {
		return err
	}
	if int(n) != len(c.ids) {
		return fmt.Errorf("add: %d status rows inserted for %d events", n, len(c.ids))
	}
	return nil
}
