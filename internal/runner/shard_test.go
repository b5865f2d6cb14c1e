package runner

import "testing"

// TestShardSplit: N shards' clients, iterations and rate add up to the
// whole run's, and the run-wide client ids are each owned by one shard.
func TestShardSplit(t *testing.T) {
	for _, c := range []struct {
		clients    int
		iterations int64
		shards     int
	}{{8, 42, 4}, {5, 5, 5}, {7, 100, 3}, {1, 0, 1}} {
		var clients int
		var iterations int64
		var rate float64
		owner := map[int]int{}
		for i := range c.shards {
			cfg := Config{Clients: c.clients, Iterations: c.iterations, Rate: 90}
			sh := Shard{Index: i, Count: c.shards}
			if err := sh.Split(&cfg); err != nil {
				t.Fatal(err)
			}
			clients += cfg.Clients
			iterations += cfg.Iterations
			rate += cfg.Rate
			for local := range cfg.Clients {
				g := cfg.Shard.ClientID(local)
				if prev, dup := owner[g]; dup {
					t.Errorf("%+v: client %d in shards %d and %d", c, g, prev, i)
				}
				owner[g] = i
			}
			if cfg.RunClients() != c.clients {
				t.Errorf("%+v: RunClients %d", c, cfg.RunClients())
			}
		}
		if clients != c.clients || iterations != c.iterations || rate < 89.999 || rate > 90.001 || len(owner) != c.clients {
			t.Errorf("%+v: shards add up to %d clients, %d iterations, rate %g, %d ids", c, clients, iterations, rate, len(owner))
		}
	}
	if err := (Shard{Index: 0, Count: 4}).Split(&Config{Clients: 3, Duration: 1}); err == nil {
		t.Error("3 clients split 4 ways: no error")
	}
}
