// Package workflow is the workflow workload: workflows that start, wait
// for an external signal carried by a durable queue (with LISTEN/NOTIFY
// wake-ups where the database has them) and are resumed and completed by
// signal workers running beside the clients; phases timed across
// goroutines, and invariants that every signal is applied exactly once.
package workflow
