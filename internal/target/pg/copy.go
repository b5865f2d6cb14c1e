package pg

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// CopyFrom streams c.Rows with COPY FROM STDIN in text format. A BEGIN
// still waiting to go out with the next statement is sent first.
func (p *pgConn) CopyFrom(ctx context.Context, c target.Copy) (int64, error) {
	stmt, err := target.CopyStatement(c)
	if err != nil {
		return 0, err
	}
	if p.beginPending {
		p.beginPending = false
		if _, err := p.c.Exec(ctx, "BEGIN"); err != nil {
			return 0, err
		}
	}
	r := target.NewCopyReader(c.Rows)
	tag, err := p.c.PgConn().CopyFrom(ctx, r, stmt)
	if err != nil {
		if srcErr := r.Failed(); srcErr != nil {
			return 0, fmt.Errorf("copy into %s: %w", c.Table, srcErr)
		}
		return 0, fmt.Errorf("copy into %s: %w", c.Table, err)
	}
	return tag.RowsAffected(), nil
}
