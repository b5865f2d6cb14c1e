// Package exitcode holds txnbench's exit statuses, documented in README.md,
// in one place for the commands that return them (internal/cli and the
// pgbench emulation, which adds pgbench's own 1 and 2).
package exitcode

// The exit statuses.
const (
	OK          = 0
	Failure     = 1   // a runtime failure: server unreachable, SQL error, ...
	Usage       = 2   // bad flags or arguments
	Invariants  = 3   // the run finished but its invariant check failed
	Regression  = 4   // txnbench diff found a regression
	Interrupted = 130 // stopped by Ctrl-C or SIGTERM; results were still printed and saved
)
