package mysql

import (
	"context"
	"database/sql"

	"github.com/txnbench/txnbench/internal/target"
)

// OpenPool is database/sql's pool of server sessions (target.SQLPool).
func (t *mysqlTarget) OpenPool(ctx context.Context, c target.PoolConfig) (target.Pool, error) {
	conn, err := t.connector()
	if err != nil {
		return nil, err
	}
	return target.NewSQLPool(conn, c, func(c *sql.Conn) target.Conn { return newConn(c, &t.tls) }), nil
}
