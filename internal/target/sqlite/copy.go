package sqlite

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
)

// CopyFrom inserts c.Rows in multi-row INSERTs of literal values. Outside
// a transaction it wraps them in one.
func (s *sqliteConn) CopyFrom(ctx context.Context, c target.Copy) (int64, error) {
	return target.InsertOwnTx(ctx, s, s.InTx(), c, func(sql string) error {
		_, err := s.C.ExecContext(ctx, sql)
		return err
	})
}
