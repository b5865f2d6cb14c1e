package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// SQLConn is a Conn over one session of a database/sql pool: the one
// adapter of the drivers on database/sql (MySQL, SQLite), with
// ScriptConn's methods through an SQLScript. A driver embeds it in its
// own session type for what only it does (COPY's spelling, TLS).
type SQLConn struct {
	// C is the session, pinned to one client.
	C      *sql.Conn
	o      *SQLOptions
	inTx   bool
	broken bool       // an error said the session is gone
	scr    *SQLScript // the script engine, or nil
}

// SQLOptions are what one driver's sessions do their own way.
type SQLOptions struct {
	// Begin starts a transaction: "BEGIN", or SQLite's "BEGIN
	// IMMEDIATE" (the write lock at once).
	Begin string
	// Rewrite spells target's $n placeholders the driver's way; nil
	// leaves a statement as it is.
	Rewrite func(query string, args []any) (string, []any)
	// ScriptRewrite is Rewrite for a script's statements, which may be
	// prepared before their arguments are known (see NewSQLScript).
	ScriptRewrite func(query string, args []any) (string, []any)
	// Spell rewrites a script's statement before it runs (a pgbench
	// script's END as COMMIT); nil leaves it as it is.
	Spell func(query string) string
	// Lost reports whether err says the session is gone (Broken); nil:
	// never.
	Lost func(err error) bool
}

// NewSQLConn is c as a Conn, doing what o says.
func NewSQLConn(c *sql.Conn, o *SQLOptions) *SQLConn { return &SQLConn{C: c, o: o} }

// Check notes an error that broke the session and returns err.
func (s *SQLConn) Check(err error) error {
	if err != nil && s.o.Lost != nil && s.o.Lost(err) {
		s.broken = true
	}
	return err
}

func (s *SQLConn) rewrite(query string, args []any) (string, []any) {
	if s.o.Rewrite == nil {
		return query, args
	}
	return s.o.Rewrite(query, args)
}

func (s *SQLConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	query, args = s.rewrite(query, args)
	res, err := s.C.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, s.Check(err)
	}
	return res.RowsAffected()
}

func (s *SQLConn) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	query, args = s.rewrite(query, args)
	r, err := s.C.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.Check(err)
	}
	return sqlRows{r}, nil
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

func (s *SQLConn) Begin(ctx context.Context) error {
	if _, err := s.C.ExecContext(ctx, s.o.Begin); err != nil {
		return s.Check(err)
	}
	s.inTx = true
	return nil
}

// Commit commits. One that fails (SQLite's SQLITE_BUSY) may leave the
// transaction open: Rollback, which the caller does on error, ends it.
func (s *SQLConn) Commit(ctx context.Context) error {
	_, err := s.C.ExecContext(ctx, "COMMIT")
	if err == nil {
		s.inTx = false
	}
	return s.Check(err)
}

func (s *SQLConn) ExecCommit(ctx context.Context, query string, args ...any) (int64, error) {
	return ExecThenCommit(ctx, s, query, args...)
}

// Rollback ends the transaction even when ctx is cancelled (its locks
// must not outlive the client's transaction), within EndWait (Ending):
// a server that does not answer cannot hold the client.
func (s *SQLConn) Rollback(ctx context.Context) error {
	if !s.inTx {
		return nil
	}
	s.inTx = false
	ectx, cancel := Ending(ctx)
	defer cancel()
	_, err := s.C.ExecContext(ectx, "ROLLBACK")
	return s.Check(err)
}

func (s *SQLConn) Broken() bool { return s.broken }

// InTx reports whether Begin started a transaction not yet ended.
func (s *SQLConn) InTx() bool { return s.inTx }

// Close closes the session; a broken one is handed back as bad, so that
// its pool drops it.
func (s *SQLConn) Close(context.Context) error {
	if s.scr != nil {
		s.scr.Close()
		s.scr = nil
	}
	if s.broken {
		_ = s.C.Raw(func(any) error { return driver.ErrBadConn })
	}
	return s.C.Close()
}

// Discard closes a pooled session for good (Discarder): its pool opens a
// new one in its place.
func (s *SQLConn) Discard() {
	s.broken = true
	s.Close(context.Background())
}

func (s *SQLConn) script() *SQLScript {
	if s.scr == nil {
		s.scr = NewSQLScript(s.C, s.o.ScriptRewrite)
	}
	return s.scr
}

func (s *SQLConn) spell(query string) string {
	if s.o.Spell == nil {
		return query
	}
	return s.o.Spell(query)
}

func (s *SQLConn) InTransaction() bool { return s.inTx || s.scr != nil && s.scr.InTransaction() }

func (s *SQLConn) InPipeline() bool { return s.scr != nil && s.scr.InPipeline() }

func (s *SQLConn) Statement(ctx context.Context, mode QueryMode, name, query string, params [][]byte, rows RowSink) error {
	return s.Check(s.script().Statement(ctx, mode, name, s.spell(query), params, rows))
}

func (s *SQLConn) Prepare(ctx context.Context, name, query string) error {
	return s.Check(s.script().Prepare(ctx, name, s.spell(query)))
}

func (s *SQLConn) StartPipeline(ctx context.Context) error { return s.script().StartPipeline(ctx) }

func (s *SQLConn) SyncPipeline(ctx context.Context) error {
	return s.Check(s.script().SyncPipeline(ctx))
}

func (s *SQLConn) EndPipeline(ctx context.Context) error {
	return s.Check(s.script().EndPipeline(ctx))
}

var _ ScriptConn = (*SQLConn)(nil)
