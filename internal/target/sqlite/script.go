package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
)

// SQLite: database/sql with the same semantics where SQLite allows.

// sqliteScript is a SQLite connection's state for scripts.
type sqliteScript struct {
	stmts    map[string]sqliteStmt
	inTx     bool // a script's BEGIN was seen, and no COMMIT/END/ROLLBACK yet
	pipe     bool
	pipeErr  error // the first error in the pipeline since its last sync
	firstErr error // the first error in the pipeline, for EndPipeline
	implicit bool  // the pipeline began the transaction the segment runs in
	args     []any
	vals     []sql.RawBytes
	ptrs     []any
}

func (s *sqliteConn) script() *sqliteScript {
	if s.scr == nil {
		s.scr = &sqliteScript{stmts: map[string]sqliteStmt{}}
	}
	return s.scr
}

func (s *sqliteConn) closeScript() {
	if s.scr != nil {
		for _, st := range s.scr.stmts {
			st.st.Close()
		}
		s.scr = nil
	}
}

// InTransaction follows the transaction statements a script sends (SQLite
// does not tell database/sql) and Conn's own Begin.
func (s *sqliteConn) InTransaction() bool {
	return s.inTx || s.scr != nil && s.scr.inTx
}

func (s *sqliteConn) InPipeline() bool { return s.scr != nil && s.scr.pipe }

func (s *sqliteConn) Statement(ctx context.Context, mode target.QueryMode, name, query string, params [][]byte, rows target.RowSink) error {
	scr := s.script()
	if !scr.pipe {
		return s.statement(ctx, scr, mode, name, query, params, rows)
	}
	if mode == target.QuerySimple {
		return target.ErrSimplePipeline
	}
	if scr.pipeErr != nil {
		return nil // skipped up to the next sync, as on a server
	}
	// As on a server, the statements up to a sync run in one implicit
	// transaction unless the script opened one.
	was := scr.inTx
	if !scr.inTx {
		if _, err := s.c.ExecContext(ctx, "BEGIN"); err != nil {
			scr.pipeErr = err
			return nil
		}
		scr.inTx, scr.implicit = true, true
	}
	if scr.implicit && isBegin(query) {
		scr.implicit = false // the script's BEGIN makes it explicit
		return nil
	}
	err := s.statement(ctx, scr, mode, name, query, params, rows)
	if err != nil {
		scr.pipeErr = err
	} else if was && !scr.inTx {
		scr.implicit = false
	}
	return nil
}

func isBegin(query string) bool {
	var t sqliteScript
	t.track(query)
	return t.inTx
}

// endSegment ends the implicit transaction of a pipeline segment:
// committed, or rolled back after an error.
func (s *sqliteConn) endSegment(ctx context.Context) {
	scr := s.scr
	if scr.implicit {
		end := "COMMIT"
		if scr.pipeErr != nil {
			end = "ROLLBACK"
		}
		if _, err := s.c.ExecContext(context.WithoutCancel(ctx), end); err != nil && scr.pipeErr == nil {
			scr.pipeErr = err
		}
		scr.inTx, scr.implicit = false, false
	}
	if scr.firstErr == nil {
		scr.firstErr = scr.pipeErr
	}
	scr.pipeErr = nil
}

func (s *sqliteConn) statement(ctx context.Context, scr *sqliteScript, mode target.QueryMode, name, query string, params [][]byte, rows target.RowSink) error {
	scr.args = scr.args[:0]
	for _, p := range params {
		if p == nil {
			scr.args = append(scr.args, nil)
		} else {
			scr.args = append(scr.args, string(p))
		}
	}
	switch mode {
	case target.QuerySimple:
		if len(params) > 0 {
			return target.ErrSimpleParams
		}
		for n, q := range splitSQLite(query) {
			if err := s.run(ctx, scr, nil, q, nil, n, rows); err != nil {
				return err
			}
		}
		return nil
	case target.QueryExtended:
		return s.run(ctx, scr, nil, query, scr.args, 0, rows)
	case target.QueryPrepared:
		if err := s.Prepare(ctx, name, query); err != nil {
			return err
		}
		return s.run(ctx, scr, scr.stmts[name].st, query, scr.args, 0, rows)
	}
	return fmt.Errorf("unknown query mode %d", mode)
}

func (s *sqliteConn) run(ctx context.Context, scr *sqliteScript, st *sql.Stmt, query string, args []any, n int, sink target.RowSink) error {
	var r *sql.Rows
	var err error
	if st != nil {
		r, err = st.QueryContext(ctx, args...)
	} else {
		r, err = s.c.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return err
	}
	scr.track(query)
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
	scr.vals = append(scr.vals[:0], make([]sql.RawBytes, len(cols))...)
	scr.ptrs = scr.ptrs[:0]
	for i := range scr.vals {
		scr.ptrs = append(scr.ptrs, &scr.vals[i])
	}
	bufs := make([][]byte, len(cols))
	count := 0
	var serr error
	for r.Next() {
		if err := r.Scan(scr.ptrs...); err != nil {
			r.Close()
			return err
		}
		for i, v := range scr.vals {
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
func (scr *sqliteScript) track(query string) {
	w := strings.Fields(strings.TrimLeft(query, " \t\r\n("))
	if len(w) == 0 {
		return
	}
	switch strings.ToUpper(strings.TrimRight(w[0], ";")) {
	case "BEGIN":
		scr.inTx = true
	case "START":
		scr.inTx = len(w) > 1 && strings.EqualFold(strings.TrimRight(w[1], ";"), "TRANSACTION") || scr.inTx
	case "COMMIT", "END":
		scr.inTx = false
	case "ROLLBACK":
		if len(w) == 1 || !strings.EqualFold(w[1], "TO") {
			scr.inTx = false
		}
	}
}

func (s *sqliteConn) Prepare(ctx context.Context, name, query string) error {
	if name == "" {
		return target.ErrUnnamedPrepared
	}
	scr := s.script()
	old, ok := scr.stmts[name]
	if ok && old.sql == query {
		return nil
	}
	st, err := s.c.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	if ok {
		old.st.Close()
	}
	scr.stmts[name] = sqliteStmt{st, query}
	return nil
}

// sqliteStmt is a prepared statement and its text.
type sqliteStmt struct {
	st  *sql.Stmt
	sql string
}

func (s *sqliteConn) StartPipeline(context.Context) error {
	scr := s.script()
	if scr.pipe {
		return errors.New("already in pipeline mode")
	}
	scr.pipe, scr.pipeErr, scr.firstErr, scr.implicit = true, nil, nil, false
	return nil
}

// SyncPipeline: statements already ran one by one; a sync ends the
// segment's implicit transaction and the skipping after an error, as on a
// server. The error still comes with EndPipeline.
func (s *sqliteConn) SyncPipeline(ctx context.Context) error {
	if !s.InPipeline() {
		return target.ErrNoPipeline
	}
	s.endSegment(ctx)
	return nil
}

func (s *sqliteConn) EndPipeline(ctx context.Context) error {
	if !s.InPipeline() {
		return target.ErrNoPipeline
	}
	s.endSegment(ctx)
	err := s.scr.firstErr
	s.scr.pipe, s.scr.firstErr = false, nil
	return err
}

// splitSQLite splits simple-protocol text at the semicolons between
// statements (not inside quotes or comments), dropping empty statements.
func splitSQLite(q string) []string {
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
