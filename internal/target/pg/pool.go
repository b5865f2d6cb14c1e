package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/txnbench/txnbench/internal/target"
)

func (t *pgTarget) OpenPool(ctx context.Context, c target.PoolConfig) (target.Pool, error) {
	cfg, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig = t.cfg.Copy()
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		registerArrayCodecs(c.TypeMap())
		return nil
	}
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
	return &pgPool{p: p, begin: t.begin}, nil
}

type pgPool struct {
	p     *pgxpool.Pool
	begin string // pgTarget.begin
}

func (p *pgPool) Acquire(ctx context.Context) (target.Conn, error) {
	pc, err := p.p.Acquire(ctx)
	if err != nil {
		return nil, refusedAuth(err)
	}
	// The connection keeps its wrapper from one borrower to the next, so
	// that borrowing it allocates nothing.
	data := pc.Conn().PgConn().CustomData()
	c, ok := data[pooledKey].(*pooledPG)
	if !ok {
		c = &pooledPG{pgConn: newPGConn(pc.Conn(), p.begin)} // prepares as a session of its own does
		data[pooledKey] = c
	}
	c.pc, c.inTx, c.beginPending = pc, false, false
	return c, nil
}

// pooledKey is where a pooled connection's wrapper lives in pgconn's
// custom data.
const pooledKey = "txnbench.pooled"

func (p *pgPool) Stats() target.PoolStats {
	s := p.p.Stat()
	return target.PoolStats{
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

// Discard disconnects c and gives it back, so the pool destroys it
// (target.Discard).
func (c *pooledPG) Discard() {
	c.pc.Conn().Close(context.Background())
	c.pc.Release()
}
