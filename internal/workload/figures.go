package workload

import "github.com/txnbench/txnbench/internal/result"

// Figurer is a workload with figures of its own, computed from the run's
// result when it is made (TPC-C's tpmC and response-time limits): lines
// the report prints after the ops, kept as the Result's Figures.
type Figurer interface {
	Figures(r *result.Result) []string
}
