package workload

// Ledger is implemented by a workload whose invariant check compares the
// database with what the run's clients committed. When a run is split
// across processes (shards), each shard's books are kept in the database
// (the run table) and the whole run's check counts them all, so no shard
// takes another's work for invented data.
type Ledger interface {
	// Ledger is this process's books since Start, by name (for example
	// events committed, commits of unknown outcome).
	Ledger() map[string]int64
	// UseLedgers makes Check count the books of every shard of the run
	// (each one's Ledger) instead of this process's own.
	UseLedgers(books []map[string]int64)
}
