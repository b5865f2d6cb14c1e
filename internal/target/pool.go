package target

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/txnbench/txnbench/internal/result"
)

// PoolConfig sizes a connection pool that clients share; it is result's
// type, recorded in a result's configuration.
type PoolConfig = result.PoolConfig

// Pool is a connection pool shared by many clients. Closing a Conn that
// Acquire returned gives it back; a broken one is discarded.
type Pool interface {
	Acquire(ctx context.Context) (Conn, error)
	Stats() PoolStats
	Close()
}

// PoolStats is what the pool saw over its life; it is result's type.
type PoolStats = result.PoolStats

func (t *pgTarget) OpenPool(ctx context.Context, c PoolConfig) (Pool, error) {
	cfg, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig = t.cfg.Copy()
	cfg.MaxConns = int32(c.Max)
	cfg.MinConns = int32(c.Min)
	if c.Lifetime > 0 {
		cfg.MaxConnLifetime = c.Lifetime
	}
	if c.HealthCheck > 0 {
		cfg.HealthCheckPeriod = c.HealthCheck
	}
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &pgPool{p: p}, nil
}

type pgPool struct{ p *pgxpool.Pool }

func (p *pgPool) Acquire(ctx context.Context) (Conn, error) {
	pc, err := p.p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &pooledPG{pgConn: pgConn{c: pc.Conn()}, pc: pc}, nil
}

func (p *pgPool) Stats() PoolStats {
	s := p.p.Stat()
	return PoolStats{
		MaxConns: int(s.MaxConns()), Acquires: s.AcquireCount(), EmptyAcquires: s.EmptyAcquireCount(),
		WaitS: s.EmptyAcquireWaitTime().Seconds(), NewConns: s.NewConnsCount(),
		Destroyed: s.MaxLifetimeDestroyCount() + s.MaxIdleDestroyCount(),
	}
}

func (p *pgPool) Close() { p.p.Close() }

// pooledPG is a pool's connection; Close gives it back, and the pool
// discards it when it is broken or still inside a transaction.
type pooledPG struct {
	pgConn
	pc *pgxpool.Conn
}

func (c *pooledPG) Close(context.Context) error {
	c.pc.Release()
	return nil
}

// Discard closes c for good: a pooled connection is not given back but
// disconnected, so the pool replaces it.
func Discard(c Conn) {
	ctx := context.Background()
	if p, ok := c.(*pooledPG); ok {
		p.pc.Conn().Close(ctx)
		p.pc.Release() // the pool sees it closed and destroys it
		return
	}
	c.Close(ctx)
}

func (t *sqliteTarget) OpenPool(ctx context.Context, c PoolConfig) (Pool, error) {
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

func (p *sqlitePool) Acquire(ctx context.Context) (Conn, error) {
	c, err := p.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	p.acquires.Add(1)
	return &sqliteConn{c: c}, nil
}

func (p *sqlitePool) Stats() PoolStats {
	s := p.db.Stats()
	return PoolStats{
		MaxConns: s.MaxOpenConnections, Acquires: p.acquires.Load(), EmptyAcquires: s.WaitCount, WaitS: s.WaitDuration.Seconds(),
		NewConns:  int64(s.OpenConnections) + s.MaxIdleClosed + s.MaxLifetimeClosed + s.MaxIdleTimeClosed,
		Destroyed: s.MaxLifetimeClosed + s.MaxIdleTimeClosed,
	}
}

func (p *sqlitePool) Close() { p.db.Close() }
