package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"
)

// SQLPool is database/sql's pool of sessions as a Pool: the pool of the
// drivers on database/sql (MySQL, SQLite). It counts the sessions it
// opens and the acquires, which database/sql does not.
type SQLPool struct {
	db       *sql.DB
	acquires atomic.Int64
	opened   atomic.Int64
	wrap     func(*sql.Conn) Conn
}

// NewSQLPool is a pool of c's sessions as c says (PoolConfig), each made
// a Conn by wrap (the driver's session type over SQLConn).
func NewSQLPool(conn driver.Connector, c PoolConfig, wrap func(*sql.Conn) Conn) *SQLPool {
	p := &SQLPool{wrap: wrap}
	db := sql.OpenDB(countingConnector{conn, &p.opened})
	db.SetMaxOpenConns(c.Max)
	db.SetMaxIdleConns(c.Max)
	if c.Lifetime > 0 {
		db.SetConnMaxLifetime(c.Lifetime)
	}
	p.db = db
	return p
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

func (p *SQLPool) Acquire(ctx context.Context) (Conn, error) {
	c, err := p.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	p.acquires.Add(1)
	return p.wrap(c), nil
}

func (p *SQLPool) Stats() PoolStats {
	s := p.db.Stats()
	opened := p.opened.Load()
	return PoolStats{
		MaxConns: s.MaxOpenConnections, Acquires: p.acquires.Load(), EmptyAcquires: s.WaitCount, WaitS: s.WaitDuration.Seconds(),
		NewConns:  opened,
		Destroyed: opened - int64(s.OpenConnections) - s.MaxIdleClosed,
	}
}

func (p *SQLPool) Close() { p.db.Close() }

// DSNConnector is a connector for a driver that opens sessions by a
// data source name alone (database/sql's sql.Open).
type DSNConnector struct {
	Drv driver.Driver
	DSN string
}

func (c DSNConnector) Connect(context.Context) (driver.Conn, error) { return c.Drv.Open(c.DSN) }

func (c DSNConnector) Driver() driver.Driver { return c.Drv }
