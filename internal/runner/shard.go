package runner

import (
	"fmt"
	"math"
)

// Shard makes a runner part Index (from 0) of Count of one run split across
// processes. Clients are dealt round-robin: client g of the whole run is
// client g/Count of shard g%Count, and a client's random stream is seeded
// by g, so Count shards together run exactly the clients of one process
// with the same flags. The zero Shard (or Count 1) is a whole run.
type Shard struct {
	Index, Count int
	// Clients is the whole run's clients (set by Split): the range of
	// the run-wide client ids.
	Clients int
}

// Sharded reports whether s is a part of a split run.
func (s Shard) Sharded() bool { return s.Count > 1 }

// ClientID is the run-wide id of the shard's client local.
func (s Shard) ClientID(local int) int {
	if !s.Sharded() {
		return local
	}
	return s.Index + local*s.Count
}

// share is this shard's part of total when total is dealt round-robin.
func (s Shard) share(total int64) int64 {
	n := total / int64(s.Count)
	if int64(s.Index) < total%int64(s.Count) {
		n++
	}
	return n
}

// Split turns c, the whole run's configuration, into this shard's part:
// its clients (dealt round-robin), its share of --iterations (dealt the
// same way, so the shards' parts add up to the total) and of --rate. A
// shard left without clients or iterations is a usage error naming the fix.
func (s Shard) Split(c *Config) error {
	if !s.Sharded() {
		return nil
	}
	if c.Clients < s.Count {
		return fmt.Errorf("--clients %d is fewer than the %d shards: give at least one client per shard (--clients %d)", c.Clients, s.Count, s.Count)
	}
	if c.Iterations > 0 && !c.PerClient && c.Iterations < int64(s.Count) {
		return fmt.Errorf("--iterations %d is fewer than the %d shards: give at least one per shard (--iterations %d)", c.Iterations, s.Count, s.Count)
	}
	s.Clients = c.Clients
	c.Clients = int(s.share(int64(c.Clients)))
	if c.Iterations > 0 && !c.PerClient {
		c.Iterations = s.share(c.Iterations)
	}
	c.Rate /= float64(s.Count)
	c.Shard = s
	return nil
}

// scheduleSeed seeds the shard's own Poisson schedule, so the shards'
// schedules are independent (together one Poisson process at the whole
// rate) rather than copies of one.
func (s Shard) scheduleSeed(seed uint64) uint64 {
	if !s.Sharded() {
		return seed
	}
	return seed ^ uint64(s.Index)*math.MaxUint32
}

// RunClients is the whole run's clients: Clients, or with a Shard all the
// shards' together. Client ids (workload.Workload.NewClient) range over it.
func (c Config) RunClients() int {
	if c.Shard.Sharded() {
		return c.Shard.Clients
	}
	return c.Clients
}
