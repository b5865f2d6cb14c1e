// Package pooler is what txnbench knows of the connection poolers between
// its clients and a server, whoever started them: PgBouncer's pool modes
// and defaults (Modes, DefaultMode, DefaultSize, Mode, Size), the readings
// of a pooler's admin console (Stats, Pools, Servers, Reconnect, each
// within ConsoleWait) and HAProxy's view of the poolers behind it
// (ProxyServers).
//
// pooler links no driver: the driver that speaks a console's protocol
// registers a Console (RegisterConsole; internal/target/pg does from its
// init, so importing internal/target/drivers links it), as drivers
// register with internal/target. Starting and stopping throwaway
// PgBouncers and HAProxy is internal/localdb's.
package pooler
