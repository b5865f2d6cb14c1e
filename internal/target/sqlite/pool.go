package sqlite

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/txnbench/txnbench/internal/target"
)

func (t *sqliteTarget) OpenPool(ctx context.Context, c target.PoolConfig) (target.Pool, error) {
	db, err := sql.Open("sqlite", t.dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(c.Max)
	db.SetMaxIdleConns(c.Max)
	if c.Lifetime > 0 {
		db.SetConnMaxLifetime(c.Lifetime)
	}
	return &sqlitePool{db: db}, nil
}

// sqlitePool is database/sql's pool over the same file.
type sqlitePool struct {
	db       *sql.DB
	acquires atomic.Int64 // database/sql does not count them
}

func (p *sqlitePool) Acquire(ctx context.Context) (target.Conn, error) {
	c, err := p.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	p.acquires.Add(1)
	return &sqliteConn{c: c}, nil
}

func (p *sqlitePool) Stats() target.PoolStats {
	s := p.db.Stats()
	return target.PoolStats{
		MaxConns: s.MaxOpenConnections, Acquires: p.acquires.Load(), EmptyAcquires: s.WaitCount, WaitS: s.WaitDuration.Seconds(),
		NewConns:  int64(s.OpenConnections) + s.MaxIdleClosed + s.MaxLifetimeClosed + s.MaxIdleTimeClosed,
		Destroyed: s.MaxLifetimeClosed + s.MaxIdleTimeClosed,
	}
}

func (p *sqlitePool) Close() { p.db.Close() }
