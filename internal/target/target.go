package target

import (
	"context"
	"time"
)

// Conn is one database session. Transactions are explicit: Begin, then
// Exec/Query, then Commit or Rollback. A Conn is used by one goroutine.
type Conn interface {
	// Exec runs a statement and returns the number of rows it affected.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a statement that returns rows; the caller closes them.
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	// Begin starts a transaction. On a server it is sent together with the
	// transaction's first statement, saving a round trip (as pgjdbc does).
	// On SQLite it takes the write lock at once (BEGIN IMMEDIATE), the
	// single-writer equivalent of row locks.
	Begin(ctx context.Context) error
	Commit(ctx context.Context) error
	// ExecCommit runs a transaction's last statement and commits, in one
	// round trip on a server. It returns the statement's rows affected; if
	// the statement fails, nothing is committed.
	ExecCommit(ctx context.Context, sql string, args ...any) (int64, error)
	// Rollback ends an open transaction, even when ctx is done (the work
	// was cancelled midway), waiting EndWait at most for the server (see
	// Ending); without one it does nothing.
	Rollback(ctx context.Context) error
	// Broken reports whether the session is unusable and must be replaced.
	Broken() bool
	Close(ctx context.Context) error
}

// Rows is the result of Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Target is one database that clients connect to.
type Target interface {
	Dialect() Dialect
	// Connect opens a new session; closing it really disconnects.
	Connect(ctx context.Context) (Conn, error)
	// OpenPool opens a pool of sessions for clients to share.
	OpenPool(ctx context.Context, c PoolConfig) (Pool, error)
	// Close releases what Open made (for a temporary SQLite file: the file).
	Close() error
}

// ExecThenCommit is ExecCommit for a driver that has no faster way: the
// statement, then Commit; on either's failure Rollback ends the
// transaction, and the first error is returned.
func ExecThenCommit(ctx context.Context, c Conn, sql string, args ...any) (int64, error) {
	n, err := c.Exec(ctx, sql, args...)
	if err == nil {
		err = c.Commit(ctx)
	}
	if err != nil {
		c.Rollback(ctx)
	}
	return n, err
}

// EndWait is how long ending a transaction on a context that is done may
// wait for the server (Ending).
const EndWait = 5 * time.Second

// Ending is the context for ending a transaction whose work ctx may have
// cancelled: not cancelled with ctx (a skipped ROLLBACK would leave the
// transaction open on a session that believes it ended), but bounded by
// EndWait, so that a frozen server cannot hold the client forever.
func Ending(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), EndWait)
}
