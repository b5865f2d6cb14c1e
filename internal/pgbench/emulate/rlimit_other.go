//go:build !unix

package emulate

// openFilesLimit is unknown here: pgbench makes no such check either.
func openFilesLimit() (uint64, bool) { return 0, false }
