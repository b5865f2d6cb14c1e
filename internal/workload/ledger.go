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

// BookOpen, set to 1 in a run's books, says they stop short: the run was
// killed after recording them (at its last heartbeat), so what it did
// afterwards is unknown and a check counts it as a range with no top.
const BookOpen = "open"

// Tables is implemented by a workload to name the tables its ops write,
// as a key: two runs with the same key at the same time wrote the same
// tables, so neither's check can hold the other's work for its own. ""
// says no other run's work can be taken for its own: its ops write
// nothing (its check reads only what it loaded), or only rows its check
// tells from every other run's (the keys of its own IDBlocks). A
// workload without Tables is taken to write tables keyed by its name.
type Tables interface {
	Tables() string
}
