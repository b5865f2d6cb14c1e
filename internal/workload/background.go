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

// Unrecorder is a Workload whose own sessions make the server commit
// transactions that no op records. Unrecorded is how many so far, since
// Start.
type Unrecorder interface {
	Unrecorded() Unrecorded
}

// Unrecorded is what a workload's sessions committed beside its ops
// (Unrecorder).
type Unrecorded struct {
	// Commits are transactions of its own, one commit each (the
	// workflow's: an await's looks at its instance row after the first,
	// the signal workers' release of their leases, the listener's LISTEN).
	Commits int64
	// Notifications are those its LISTEN session received: the server
	// reads them in transactions of its own, one each time it delivers
	// them (several at once when they arrive together), so up to as many
	// commits.
	Notifications int64
}

// Sub is u less o: what was committed since o.
func (u Unrecorded) Sub(o Unrecorded) Unrecorded {
	return Unrecorded{Commits: u.Commits - o.Commits, Notifications: u.Notifications - o.Notifications}
}
