// Package runner drives a workload: N clients, each with its own session,
// run cycles of ops for a duration or an exact number of iterations. It
// times every op, retries serialization failures, deadlocks and SQLite
// busy errors with capped jittered backoff, classifies and counts other
// errors, reconnects when a session breaks, and reports intervals.
package runner
