package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"

	"github.com/txnbench/txnbench/internal/target"
)

// errBad is what a Raw callback returns to make database/sql drop the
// connection.
var errBad = driver.ErrBadConn

func (t *mysqlTarget) OpenPool(ctx context.Context, c target.PoolConfig) (target.Pool, error) {
	db, err := t.open()
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(c.Max)
	db.SetMaxIdleConns(c.Max)
	if c.Lifetime > 0 {
		db.SetConnMaxLifetime(c.Lifetime)
	}
	return &mysqlPool{db: db}, nil
}

// mysqlPool is database/sql's pool of server sessions.
type mysqlPool struct {
	db       *sql.DB
	acquires atomic.Int64 // database/sql does not count them
}

func (p *mysqlPool) Acquire(ctx context.Context) (target.Conn, error) {
	c, err := p.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	p.acquires.Add(1)
	return &mysqlConn{c: c}, nil
}

func (p *mysqlPool) Stats() target.PoolStats {
	s := p.db.Stats()
	return target.PoolStats{
		MaxConns: s.MaxOpenConnections, Acquires: p.acquires.Load(), EmptyAcquires: s.WaitCount, WaitS: s.WaitDuration.Seconds(),
		NewConns:  int64(s.OpenConnections) + s.MaxIdleClosed + s.MaxLifetimeClosed + s.MaxIdleTimeClosed,
		Destroyed: s.MaxLifetimeClosed + s.MaxIdleTimeClosed,
	}
}

func (p *mysqlPool) Close() { p.db.Close() }

// Discard closes a pooled session for good (target.Discard): the pool
// opens a new one in its place.
func (s *mysqlConn) Discard() {
	s.broken = true
	s.Close(context.Background())
}
