package trainevents

import (
	"context"
	"fmt"

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
	n, err := conn.Exec(ctx, c.w.sql.copyArchive, c.idArgs()...)
	if err != nil {
		return err
	}
	if int(n) != len(c.ids) {
		return fmt.Errorf("archive: copied %d of %d events", n, len(c.ids))
	}
	if err := c.think(ctx); err != nil {
		return err
	}
	return c.execCommit(ctx, conn, 0, "archive: events deleted", c.w.sql.deleteEvents, c.idArgs())
}
