// Package telemetry watches a run from beside it: the database's own
// counters (pg_stat_database, the WAL position), what its sessions wait on
// (pg_stat_activity, sampled), each statement's server time
// (pg_stat_statements), a pooler's counters (PgBouncer's SHOW STATS), and
// what txnbench and the machine spend in CPU. A Collector samples on its
// own goroutine and session, never on the runner's, and fills a
// result.Telemetry whose Series lines up with the run's progress
// intervals. Nothing it fails to collect fails the run: it becomes a Note.
package telemetry
