package mysql

import (
	"context"
	"crypto/tls"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"

	"github.com/txnbench/txnbench/internal/target"
)

// errBad is what a Raw callback returns to make database/sql drop the
// connection.
var errBad = driver.ErrBadConn

func (t *mysqlTarget) OpenPool(ctx context.Context, c target.PoolConfig) (target.Pool, error) {
	conn, err := t.connector()
	if err != nil {
		return nil, err
	}
	p := &mysqlPool{tls: &t.tls}
	db := sql.OpenDB(countingConnector{conn, &p.opened})
	db.SetMaxOpenConns(c.Max)
	db.SetMaxIdleConns(c.Max)
	if c.Lifetime > 0 {
		db.SetConnMaxLifetime(c.Lifetime)
	}
	p.db = db
	return p, nil
}

// countingConnector counts the sessions a pool opens: database/sql does
// not count those it drops as broken.
type countingConnector struct {
	driver.Connector
	opened *atomic.Int64
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err == nil {
		c.opened.Add(1)
	}
	return conn, err
}

// mysqlPool is database/sql's pool of server sessions.
type mysqlPool struct {
	db       *sql.DB
	acquires atomic.Int64 // database/sql does not count them
	opened   atomic.Int64 // sessions opened (countingConnector)
	tls      *atomic.Pointer[tls.ConnectionState]
}

func (p *mysqlPool) Acquire(ctx context.Context) (target.Conn, error) {
	c, err := p.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	p.acquires.Add(1)
	return &mysqlConn{c: c, tls: p.tls}, nil
}

func (p *mysqlPool) Stats() target.PoolStats {
	s := p.db.Stats()
	return target.PoolStats{
		MaxConns: s.MaxOpenConnections, Acquires: p.acquires.Load(), EmptyAcquires: s.WaitCount, WaitS: s.WaitDuration.Seconds(),
		NewConns:  p.opened.Load(),
		Destroyed: p.opened.Load() - int64(s.OpenConnections) - s.MaxIdleClosed,
	}
}

func (p *mysqlPool) Close() { p.db.Close() }

// Discard closes a pooled session for good (target.Discard): the pool
// opens a new one in its place.
func (s *mysqlConn) Discard() {
	s.broken = true
	s.Close(context.Background())
}
