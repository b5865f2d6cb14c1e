package sqlite

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
)

// CopyFrom inserts c.Rows in multi-row INSERTs of literal values. Outside
// a transaction it wraps them in one.
func (s *sqliteConn) CopyFrom(ctx context.Context, c target.Copy) (n int64, err error) {
	own := !s.inTx
	if own {
		if err := s.Begin(ctx); err != nil {
			return 0, err
		}
		defer func() {
			if err != nil {
				s.Rollback(ctx)
			}
		}()
	}
	n, err = target.InsertBatches(c, func(sql string) error {
		_, err := s.c.ExecContext(ctx, sql)
		return err
	})
	if err != nil {
		return 0, err
	}
	if own {
		if err := s.Commit(ctx); err != nil {
			return 0, err
		}
	}
	return n, nil
}
