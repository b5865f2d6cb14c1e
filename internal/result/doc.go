// Package result is the Result document of a run: configuration (with
// passwords masked), versions, machine, per-op statistics with their HDR
// histograms, intervals, error classes, client CPU and the invariant
// check. Results load, save and merge exactly.
package result
