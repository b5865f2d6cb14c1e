package result

import "time"

// PoolConfig sizes a connection pool that clients share.
type PoolConfig struct {
	Max, Min    int           // connections; Min are opened up front
	Lifetime    time.Duration // a connection is replaced after this; 0 = never
	HealthCheck time.Duration // idle connections are checked this often; 0 = default
}

// PoolStats is what the pool saw over its life.
type PoolStats struct {
	MaxConns      int     `json:"max_conns"`
	Acquires      int64   `json:"acquires"`
	EmptyAcquires int64   `json:"empty_acquires"` // acquires that had to wait or open a connection
	WaitS         float64 `json:"wait_s"`         // total time acquires waited
	NewConns      int64   `json:"new_conns"`
	// Destroyed counts connections retired by lifetime or idle limits.
	Destroyed int64 `json:"destroyed"`
}
