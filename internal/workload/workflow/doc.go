// Package workflow is the workflow workload: workflows that start, wait
// for an external signal carried by a durable queue (with LISTEN/NOTIFY
// wake-ups where the database has them) and are resumed and completed by
// signal workers running beside the clients; phases timed across
// goroutines, and invariants that every signal is applied exactly once.
package workflow

import "github.com/txnbench/txnbench/internal/workload"

func init() {
	workload.Register(workload.Def{
		Name:    "workflow",
		Summary: "workflows resumed by external signals through a durable queue, drained by signal workers (LISTEN/NOTIFY or polling)",
		New:     func() workload.Workload { return &Workload{} },
	})
}
