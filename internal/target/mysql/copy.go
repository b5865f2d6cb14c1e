package mysql

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// CopyFrom inserts c.Rows in multi-row INSERTs of literal values, as
// there is no COPY. The literals double their quotes only, so the load
// runs with NO_BACKSLASH_ESCAPES added to the session's sql_mode (a
// backslash in the data is then itself), and the session's mode is put
// back afterwards. Outside a transaction the load is one of its own.
func (s *mysqlConn) CopyFrom(ctx context.Context, c target.Copy) (n int64, err error) {
	var mode string
	if err := s.C.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil {
		return 0, fmt.Errorf("copy into %s: reading sql_mode: %w", c.Table, s.Check(err))
	}
	if _, err := s.C.ExecContext(ctx, "SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES')"); err != nil {
		return 0, fmt.Errorf("copy into %s: %w", c.Table, s.Check(err))
	}
	defer func() {
		if _, e := s.C.ExecContext(context.WithoutCancel(ctx), "SET SESSION sql_mode = ?", mode); e != nil && err == nil {
			err = fmt.Errorf("copy into %s: restoring sql_mode: %w", c.Table, s.Check(e))
		}
	}()
	return target.InsertOwnTx(ctx, s, s.InTx(), c, func(sql string) error {
		_, err := s.C.ExecContext(ctx, sql)
		return s.Check(err)
	})
}
