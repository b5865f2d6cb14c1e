// Package metrics records operation latencies in HDR histograms (microseconds,
// 1 µs to 1 h, 3 significant digits).
//
// A Recorder keeps one histogram per named op, split into a few mutex-guarded
// shards so that thousands of clients can record concurrently without
// allocating. Tick returns the interval histograms since the previous Tick and
// folds them into the cumulative ones returned by Total. A Hist encodes to the
// standard HdrHistogram V2 compressed base64 form, so saved results can be
// decoded and merged exactly, for example to combine runs from several machines.
package metrics
