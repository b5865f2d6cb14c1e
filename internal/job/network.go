package job

import (
	"strconv"
	"time"

	"github.com/txnbench/txnbench/internal/target"
)

// NoConnectTimeout as Spec.ConnectTimeout makes clients wait for a login
// as long as it takes, as pgbench (libpq without connect_timeout) does.
const NoConnectTimeout time.Duration = -1

// poolerClientReserve is how many client connections a throwaway
// PgBouncer accepts beyond twice the run's: txnbench's own (the probe, the
// admin console, telemetry) and headroom.
const poolerClientReserve = 100

// poolerMaxClientConn is max_client_conn for a throwaway PgBouncer serving
// sessions client connections: twice as many, so that clients that
// reconnect (per-txn, retries after errors) never meet it while PgBouncer
// has not yet seen the closes of their old connections, and at least
// PgBouncer's own default of 1,000. A connection slot costs PgBouncer a
// file descriptor and nothing else until it is used.
func poolerMaxClientConn(sessions int) int {
	return max(2*sessions+poolerClientReserve, 1000)
}

// clientURL is u with the spec's connect timeout (connect_timeout, whole
// seconds, rounded up; 0 waits as long as it takes) unless u gives its
// own: ConnectTimeout 0 leaves u alone (the driver's default, 10 s).
func (s Spec) clientURL(u string) string {
	switch {
	case s.ConnectTimeout == 0 || !target.IsServerURL(u):
		return u
	case s.ConnectTimeout < 0:
		return target.WithParam(u, "connect_timeout", "0")
	}
	secs := (s.ConnectTimeout + time.Second - 1) / time.Second
	return target.WithParam(u, "connect_timeout", strconv.FormatInt(int64(secs), 10))
}
