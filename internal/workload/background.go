package workload

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
)

// Backgrounder is a Workload with work of its own beside the clients, on
// sessions of its own (a workflow's signal workers). The run calls
// Background after Start and before the clients start; stop, called when
// the clients have ended (or the run is interrupted), ends that work and
// returns only when its goroutines and sessions are gone. The work records
// its timings through the clients' StepRecorders, as steps.
type Backgrounder interface {
	Background(ctx context.Context, env BackgroundEnv) (stop func(), err error)
	// BackgroundSessions is how many sessions the work opens at most, for
	// sizing a throwaway server's max_connections.
	BackgroundSessions() int
}

// BackgroundEnv is how a workload's background work reaches the database.
type BackgroundEnv struct {
	// Connect opens a session the way the clients reach the database
	// (through the pooler when there is one); the caller closes it.
	Connect func(ctx context.Context) (target.Conn, error)
	// Session opens a session to the server itself, one that keeps its
	// state between transactions (LISTEN needs one): the same as Connect
	// without a pooler, straight to the server behind a throwaway
	// PgBouncer. Nil when txnbench cannot reach the server but through a
	// pooler, and NoSession says why.
	Session   func(ctx context.Context) (target.Conn, error)
	NoSession string
}

// Notified is a Backgrounder with a session that LISTENs: the server
// reads a session's notifications in transactions of its own, one each
// time it delivers them (several notifications at once when they arrive
// together), which no op records. Notifications is how many the session
// received so far.
type Notified interface {
	Notifications() int64
}
