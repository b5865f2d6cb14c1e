package workload

import "slices"

// ReadOnlyOps is a workload some of whose ops only read: with --read-from
// replicas or any (docs/replication.md) the runner hands those ops their
// connections from the standbys, the others theirs from the primary. A
// workload opts in by naming them (YCSB's and pgbench's read-only
// builtins do; TPC-C's Order-Status and Stock-Level could).
type ReadOnlyOps interface {
	// ReadOnlyOps are the names, among OpNames, of the ops that write
	// nothing; known after Validate.
	ReadOnlyOps() []string
}

// ReadOnly are w's read-only ops, none when it declares none.
func ReadOnly(w Workload) []string { return ask(w, ReadOnlyOps.ReadOnlyOps) }

// ReadOnlyIndexes says of each of w's ops, by its index in OpNames,
// whether it is read-only.
func ReadOnlyIndexes(w Workload) []bool {
	ro := ReadOnly(w)
	names := w.OpNames()
	out := make([]bool, len(names))
	for i, n := range names {
		out[i] = slices.Contains(ro, n)
	}
	return out
}

// StaleCounter is a workload that can tell when a read missed the
// client's own acknowledged write (a read-your-writes miss, as a read
// on a standby that has not replayed the write yet makes).
type StaleCounter interface {
	// StaleReads are the misses, the reads that could miss (of the
	// client's own last write) and all the reads; not ok when this run's ops
	// cannot tell.
	StaleReads() (stale, own, reads int64, ok bool)
}
