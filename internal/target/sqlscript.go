package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SQLScript is the pgbench script engine (ScriptConn's statements) on a
// database/sql connection, for drivers without a protocol of their own
// for it (SQLite, MySQL): statements run one by one, and a pipeline is
// emulated with the semantics a server gives it (an implicit transaction
// per segment, statements skipped after an error up to the next sync).
type SQLScript struct {
	conn *sql.Conn
	// rewrite turns a statement with $n placeholders into the driver's
	// spelling, with args in the order it takes them; nil: as it is.
	rewrite func(query string, args []any) (string, []any)

	stmts    map[string]sqlStmt
	inTx     bool // a script's BEGIN was seen, and no COMMIT/END/ROLLBACK yet
	pipe     bool
	pipeErr  error // the first error in the pipeline since its last sync
	firstErr error // the first error in the pipeline, for EndPipeline
	implicit bool  // the pipeline began the transaction the segment runs in
	args     []any
	vals     []sql.RawBytes
	ptrs     []any
}

// NewSQLScript returns the script engine of conn. rewrite, if not nil,
// gives a statement with $n placeholders in the driver's spelling and its
// arguments in the order the driver takes them.
func NewSQLScript(conn *sql.Conn, rewrite func(query string, args []any) (string, []any)) *SQLScript {
	return &SQLScript{conn: conn, rewrite: rewrite, stmts: map[string]sqlStmt{}}
}

// sqlStmt is a prepared statement and its text.
type sqlStmt struct {
	st  *sql.Stmt
	sql string
}

// Close closes the prepared statements.
func (s *SQLScript) Close() {
	for _, st := range s.stmts {
		st.st.Close()
	}
	s.stmts = map[string]sqlStmt{}
}

// InTransaction follows the transaction statements a script sends
// (database/sql is not told of them); the caller adds its own Begin.
func (s *SQLScript) InTransaction() bool { return s.inTx }

// InPipeline reports whether a pipeline is open.
func (s *SQLScript) InPipeline() bool { return s.pipe }

// Statement is ScriptConn's Statement.
func (s *SQLScript) Statement(ctx context.Context, mode QueryMode, name, query string, params [][]byte, rows RowSink) error {
	if !s.pipe {
		return s.statement(ctx, mode, name, query, params, rows)
	}
	if mode == QuerySimple {
		return ErrSimplePipeline
	}
	if s.pipeErr != nil {
		return nil // skipped up to the next sync, as on a server
	}
	// As on a server, the statements up to a sync run in one implicit
	// transaction unless the script opened one.
	was := s.inTx
	if !s.inTx {
		if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
			s.pipeErr = err
			return nil
		}
		s.inTx, s.implicit = true, true
	}
	if s.implicit && isBegin(query) {
		s.implicit = false // the script's BEGIN makes it explicit
		return nil
	}
	err := s.statement(ctx, mode, name, query, params, rows)
	if err != nil {
		s.pipeErr = err
	} else if was && !s.inTx {
		s.implicit = false
	}
	return nil
}

func isBegin(query string) bool {
	var t SQLScript
	t.track(query)
	return t.inTx
}

// endSegment ends the implicit transaction of a pipeline segment:
// committed, or rolled back after an error.
func (s *SQLScript) endSegment(ctx context.Context) {
	if s.implicit {
		end := "COMMIT"
		if s.pipeErr != nil {
			end = "ROLLBACK"
		}
		ectx, cancel := Ending(ctx)
		_, err := s.conn.ExecContext(ectx, end)
		cancel()
		if err != nil && s.pipeErr == nil {
			s.pipeErr = err
		}
		s.inTx, s.implicit = false, false
	}
	if s.firstErr == nil {
		s.firstErr = s.pipeErr
	}
	s.pipeErr = nil
}

func (s *SQLScript) statement(ctx context.Context, mode QueryMode, name, query string, params [][]byte, rows RowSink) error {
	s.args = s.args[:0]
	for _, p := range params {
		if p == nil {
			s.args = append(s.args, nil)
		} else {
			s.args = append(s.args, string(p))
		}
	}
	switch mode {
	case QuerySimple:
		if len(params) > 0 {
			return ErrSimpleParams
		}
		for n, q := range SplitStatements(query) {
			if err := s.run(ctx, nil, q, nil, n, rows); err != nil {
				return err
			}
		}
		return nil
	case QueryExtended:
		return s.run(ctx, nil, query, s.args, 0, rows)
	case QueryPrepared:
		if err := s.Prepare(ctx, name, query); err != nil {
			return err
		}
		return s.run(ctx, s.stmts[name].st, query, s.args, 0, rows)
	}
	return fmt.Errorf("unknown query mode %d", mode)
}

func (s *SQLScript) run(ctx context.Context, st *sql.Stmt, query string, args []any, n int, sink RowSink) error {
	text := query
	if s.rewrite != nil && len(args) > 0 {
		text, args = s.rewrite(query, args)
	}
	var r *sql.Rows
	var err error
	if st != nil {
		r, err = st.QueryContext(ctx, args...)
	} else {
		r, err = s.conn.QueryContext(ctx, text, args...)
	}
	if err != nil {
		return err
	}
	s.track(query)
	if sink == nil {
		for r.Next() {
		}
		r.Close()
		return r.Err()
	}
	cols, err := r.Columns()
	if err != nil {
		r.Close()
		return err
	}
	s.vals = append(s.vals[:0], make([]sql.RawBytes, len(cols))...)
	s.ptrs = s.ptrs[:0]
	for i := range s.vals {
		s.ptrs = append(s.ptrs, &s.vals[i])
	}
	bufs := make([][]byte, len(cols))
	count := 0
	var serr error
	for r.Next() {
		if err := r.Scan(s.ptrs...); err != nil {
			r.Close()
			return err
		}
		for i, v := range s.vals {
			bufs[i] = v
		}
		if serr == nil {
			serr = sink.Row(n, cols, bufs)
		}
		count++
	}
	r.Close()
	if err := r.Err(); err != nil {
		return err
	}
	if serr == nil {
		serr = sink.EndResult(n, count)
	}
	return serr
}

// track follows BEGIN, COMMIT, END and ROLLBACK (not ROLLBACK TO).
func (s *SQLScript) track(query string) {
	w := strings.Fields(strings.TrimLeft(query, " \t\r\n("))
	if len(w) == 0 {
		return
	}
	switch strings.ToUpper(strings.TrimRight(w[0], ";")) {
	case "BEGIN":
		s.inTx = true
	case "START":
		s.inTx = len(w) > 1 && strings.EqualFold(strings.TrimRight(w[1], ";"), "TRANSACTION") || s.inTx
	case "COMMIT", "END":
		s.inTx = false
	case "ROLLBACK":
		if len(w) == 1 || !strings.EqualFold(w[1], "TO") {
			s.inTx = false
		}
	}
}

// Prepare is ScriptConn's Prepare.
func (s *SQLScript) Prepare(ctx context.Context, name, query string) error {
	if name == "" {
		return ErrUnnamedPrepared
	}
	old, ok := s.stmts[name]
	if ok && old.sql == query {
		return nil
	}
	text := query
	if s.rewrite != nil {
		text, _ = s.rewrite(query, nil)
	}
	st, err := s.conn.PrepareContext(ctx, text)
	if err != nil {
		return err
	}
	if ok {
		old.st.Close()
	}
	s.stmts[name] = sqlStmt{st, query}
	return nil
}

// StartPipeline is ScriptConn's StartPipeline.
func (s *SQLScript) StartPipeline(context.Context) error {
	if s.pipe {
		return errors.New("already in pipeline mode")
	}
	s.pipe, s.pipeErr, s.firstErr, s.implicit = true, nil, nil, false
	return nil
}

// SyncPipeline: statements already ran one by one; a sync ends the
// segment's implicit transaction and the skipping after an error, as on a
// server. The error still comes with EndPipeline.
func (s *SQLScript) SyncPipeline(ctx context.Context) error {
	if !s.pipe {
		return ErrNoPipeline
	}
	s.endSegment(ctx)
	return nil
}

// EndPipeline is ScriptConn's EndPipeline.
func (s *SQLScript) EndPipeline(ctx context.Context) error {
	if !s.pipe {
		return ErrNoPipeline
	}
	s.endSegment(ctx)
	err := s.firstErr
	s.pipe, s.firstErr = false, nil
	return err
}

// SplitStatements splits simple-protocol text at the semicolons between
// statements (not inside quotes, brackets or comments), dropping empty
// statements.
func SplitStatements(q string) []string {
	if !strings.Contains(q, ";") {
		return []string{q}
	}
	var out []string
	start := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '\'', '"', '`':
			for i++; i < len(q) && q[i] != c; i++ {
			}
		case '[':
			for i++; i < len(q) && q[i] != ']'; i++ {
			}
		case '-':
			if i+1 < len(q) && q[i+1] == '-' {
				for ; i < len(q) && q[i] != '\n'; i++ {
				}
			}
		case '/':
			if i+1 < len(q) && q[i+1] == '*' {
				if j := strings.Index(q[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					i = len(q)
				}
			}
		case ';':
			if st := strings.TrimSpace(q[start:i]); st != "" {
				out = append(out, q[start:i])
			}
			start = i + 1
		}
	}
	if start < len(q) && strings.TrimSpace(q[start:]) != "" {
		out = append(out, q[start:])
	}
	return out
}
