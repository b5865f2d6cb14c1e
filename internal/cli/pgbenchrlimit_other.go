//go:build !unix

package cli

// openFilesLimit is unknown here: pgbench makes no such check either.
func openFilesLimit() (uint64, bool) { return 0, false }
