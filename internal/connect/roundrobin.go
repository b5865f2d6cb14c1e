package connect

import (
	"sync/atomic"

	"github.com/txnbench/txnbench/internal/target"
)

// RoundRobin is a Connector that deals its clients over cs in turn: the
// first client's connections come from cs[0], the next one's from cs[1],
// and so on (--read-from's standbys). It closes every one of cs.
func RoundRobin(cs []Connector) Connector { return &roundRobin{cs: cs} }

type roundRobin struct {
	cs   []Connector
	next atomic.Int64
}

func (r *roundRobin) Client() Handle {
	return r.cs[int((r.next.Add(1)-1)%int64(len(r.cs)))].Client()
}

func (r *roundRobin) WaitName() string { return r.cs[0].WaitName() }

// PoolStats is nil: the run's pool statistics are the primary's.
func (r *roundRobin) PoolStats() *target.PoolStats { return nil }

func (r *roundRobin) Close() {
	for _, c := range r.cs {
		c.Close()
	}
}
