package diff

import "fmt"

// Family groups metrics that share a noise threshold.
type Family string

// The metric families.
const (
	FamThroughput Family = "throughput" // transactions/s, ops/s
	FamMean       Family = "mean"       // mean and p50 latency
	// FamServer is the server's execution time per op (pg_stat_statements):
	// a mean over few statements whose rare slow executions (a GIN pending
	// list flush, a WAL segment switch) move it more than client latency.
	FamServer     Family = "server"
	FamP95        Family = "p95"
	FamP99        Family = "p99"
	FamErrors     Family = "errors"   // error rate per op
	FamDatabase   Family = "database" // database counters per transaction
	FamInvariants Family = "invariants"
)

// Thresholds are the relative changes, in %, beyond which a metric of each
// family counts as moved.
type Thresholds struct {
	Throughput float64 `json:"throughput_pct"`
	Mean       float64 `json:"mean_pct"`
	Server     float64 `json:"server_pct"`
	P95        float64 `json:"p95_pct"`
	P99        float64 `json:"p99_pct"`
	Errors     float64 `json:"errors_pct"`
	Database   float64 `json:"database_pct"`
}

// DefaultThresholds sit above the run-to-run spread bench/spread.sh
// measured between identical short runs on a quiet machine (above the
// largest change of each family on PostgreSQL, above the 90th percentile
// on SQLite; docs/BENCHMARKS.md, "Run-to-run spread"): percentiles rest on
// few samples and move more than throughput and the mean. The server time
// per op moved up to 39% between identical 8 s train-events runs on
// temp-postgres (its mean is carried by rare slow executions), database
// counters per transaction up to 19%. Errors were not measured there
// (identical runs had none).
var DefaultThresholds = Thresholds{
	Throughput: 15,
	Mean:       25,
	Server:     50,
	P95:        50,
	P99:        60,
	Errors:     50,
	Database:   25,
}

// Uniform is pct for every family (--threshold).
func Uniform(pct float64) Thresholds {
	return Thresholds{pct, pct, pct, pct, pct, pct, pct}
}

// For is the family's threshold in %.
func (t Thresholds) For(f Family) float64 {
	switch f {
	case FamThroughput:
		return t.Throughput
	case FamMean:
		return t.Mean
	case FamServer:
		return t.Server
	case FamP95:
		return t.P95
	case FamP99:
		return t.P99
	case FamErrors:
		return t.Errors
	case FamDatabase:
		return t.Database
	}
	return 0
}

// Absolute floors: a change smaller than these is never a regression (nor
// an improvement), whatever its relative size.
const (
	// LatencyFloorMS: a sub-millisecond op (SELECT 1 at 0.03 ms) moves by
	// tens of percent when the machine's scheduler wakes a thread a few
	// microseconds later; 0.05 ms is above that jitter and below anything a
	// user of a transactional workload would notice.
	LatencyFloorMS = 0.05
	// ErrorRateFloor: an error rate has to move by 0.1 percentage point (1
	// in 1,000 attempts): a handful of errors in a long run is reported
	// (new error classes are always named) but does not fail a gate.
	ErrorRateFloor = 0.001
	// CountPerTxnFloor and BytesPerTxnFloor are the floors of database
	// counters per transaction: one event in 100 transactions, 1 KiB.
	CountPerTxnFloor = 0.01
	BytesPerTxnFloor = 1024
)

// MinSamples are the fewest measured ops (on each side) for a metric of an
// op to be compared. A tail percentile is compared only when at least five
// samples lie beyond it (100 for p95, 500 for p99): below that it is one
// of the few slowest ops, and short runs' tails moved by 100% and more
// between identical runs (docs/BENCHMARKS.md). Waits (the connect or
// pool_wait rows) are only compared when they are part of every
// transaction's work (per-txn connections, a pool), not a connection per
// client at the start.
const (
	MinSamples = 10
	// RefSamples is how many samples per op the default latency thresholds
	// were measured with (short train-events runs, 340-540 per op): a
	// latency of fewer samples is noisier, about as 1/sqrt(n), so its
	// threshold is widened by sqrt(RefSamples/n).
	RefSamples     = 300
	MinSamplesP95  = 100
	MinSamplesP99  = 500
	MinSamplesWait = 100
)

// Pct prints a threshold, a percentage: "10%".
func Pct(v float64) string { return fmt.Sprintf("%g%%", v) }
