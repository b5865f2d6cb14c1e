package trainevents

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// add inserts n new events, returning their ids, thinks, then gives each a
// PENDING status row, in one transaction.
func (c *client) add(ctx context.Context, conn target.Conn) error {
	if err := c.insertNew(ctx, conn, c.n); err != nil {
		return err
	}
	if err := c.think(ctx); err != nil {
		return err
	}
	return c.execCommit(ctx, conn, len(c.ids), "add: status rows inserted", c.w.sql.insertStatus, c.idArgs())
}

// insertNew generates n events into a borrowed batch, inserts them and
// reads the returned ids into c.ids. The batch goes back to the pool as
// soon as it has been sent.
func (c *client) insertNew(ctx context.Context, conn target.Conn, n int) error {
	b := c.w.batches.get()
	defer c.w.batches.put(b)
	c.gen.fill(b, n)
	if c.w.sql.insertNoIDs {
		return c.insertBatch(ctx, conn, b)
	}
	rows, err := conn.Query(ctx, c.w.sql.insertEvents, c.eventArgs(b)...)
	clear(c.args) // drop references into b
	if err != nil {
		return err
	}
	if err := c.scanIDs(rows, false); err != nil {
		return err
	}
	if len(c.ids) != n {
		return fmt.Errorf("add: inserted %d events but %d ids came back", n, len(c.ids))
	}
	return nil
}

// insertBatch inserts b where the insert returns no ids: they are the
// batch's own, taken when the server counts as many rows as b holds.
func (c *client) insertBatch(ctx context.Context, conn target.Conn, b *batch) error {
	n, err := conn.Exec(ctx, c.w.sql.insertEvents, c.eventArgs(b)...)
	clear(c.args) // drop references into b
	if err != nil {
		return err
	}
	if int(n) != len(b.events) {
		return fmt.Errorf("add: inserted %d events of %d", n, len(b.events))
	}
	c.ids = c.ids[:0]
	for i := range b.events {
		c.ids = append(c.ids, b.events[i].id)
	}
	return nil
}

// insertStatus gives every id in c.ids a PENDING status row.
func (c *client) insertStatus(ctx context.Context, conn target.Conn) error {
	return c.execEach(ctx, conn, "add: status rows inserted", c.w.sql.insertStatus, c.idArgs())
}
