package sqlite

import (
	"context"
	"database/sql"

	"github.com/txnbench/txnbench/internal/target"
)

// OpenPool is database/sql's pool over the same file (target.SQLPool).
func (t *sqliteTarget) OpenPool(ctx context.Context, c target.PoolConfig) (target.Pool, error) {
	conn := target.DSNConnector{Drv: t.db.Driver(), DSN: t.dsn}
	return target.NewSQLPool(conn, c, func(c *sql.Conn) target.Conn { return newConn(c) }), nil
}
