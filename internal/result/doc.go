// Package result is the Result document of a run: configuration (with
// passwords masked), versions, machine, per-op statistics with their HDR
// histograms, intervals, error classes, client CPU and the invariant
// check. Results load, save and merge exactly.
//
// It is a leaf: its types (Check, PoolStats, PoolConfig) are its own, and
// the workload and target packages use them, so everything that only reads
// results (report, diff, study, suite, live) links no database driver; the
// error classes it counts are errclass's. internal/deps_test.go
// (TestDepsFollowLayers) keeps it so.
package result
