package target

import (
	"context"

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

// Discard closes c for good: a pooled connection is not given back but
// disconnected, so the pool replaces it.
func Discard(c Conn) {
	if d, ok := c.(interface{ Discard() }); ok {
		d.Discard()
		return
	}
	c.Close(context.Background())
}
