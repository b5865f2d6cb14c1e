// Package pooler is what txnbench knows of the connection poolers between
// its clients and a server, whoever started them: PgBouncer's pool modes
// and defaults (Modes, DefaultMode, DefaultSize, Mode, Size,
// DefaultMaxClientConn, MaxClientConn) and their one check (Check), the
// readings of a pooler's admin console (Stats, Pools, Servers, Reconnect,
// each within ConsoleWait) through its Admin (opened from its URL once by
// Open, it keeps one session), HAProxy's view of the poolers behind it
// (ProxyServers), and the Watcher of a run's poolers (watch.go): their
// consoles, opened once for the run, their counters before and after the
// run, the consoles that did not answer, the restarts the telemetry saw
// (Restart events), which the job and the telemetry both read.
//
// pooler links no driver: the driver that speaks a console's protocol
// registers the Console that opens one (RegisterConsole;
// internal/target/pg does from its init, so importing
// internal/target/drivers links it), as drivers register with
// internal/target. Starting and stopping throwaway PgBouncers and HAProxy
// is internal/localdb's.
package pooler
