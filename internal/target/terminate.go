package target

import "context"

// SessionTerminator is a Target whose driver ends this process's client
// sessions on the server itself (the terminate-backends fault), where
// the server has no PostgreSQL pg_terminate_backend.
type SessionTerminator interface {
	// TerminateSessions ends every session this process opened to the
	// server but the one it uses to do so, and returns how many it ended.
	TerminateSessions(ctx context.Context) (int64, error)
}
