package trainevents

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
)

// archive takes up to n of the oldest COMPLETE events, copies them into
// the archive, thinks, and deletes them (their status rows cascade).
func (c *client) archive(ctx context.Context, conn target.Conn) error {
	if err := c.pick(ctx, conn, c.w.sql.selectArchive, false); err != nil {
		return err
	}
	if len(c.ids) == 0 {
		return conn.Commit(ctx)
	}
	if err := c.execEach(ctx, conn, "archive: events copied", c.w.sql.copyArchive, c.idArgs()); err != nil {
		return err
	}
	if err := c.think(ctx); err != nil {
		return err
	}
	return c.execCommit(ctx, conn, 0, "archive: events deleted", c.w.sql.deleteEvents, c.idArgs())
}
