package sqlite

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
)

// The pgbench script engine on SQLite is target's, on database/sql.

func (s *sqliteConn) script() *target.SQLScript {
	if s.scr == nil {
		s.scr = target.NewSQLScript(s.c, nil)
	}
	return s.scr
}

func (s *sqliteConn) closeScript() {
	if s.scr != nil {
		s.scr.Close()
		s.scr = nil
	}
}

// InTransaction follows the transaction statements a script sends (SQLite
// does not tell database/sql) and Conn's own Begin.
func (s *sqliteConn) InTransaction() bool { return s.inTx || s.scr != nil && s.scr.InTransaction() }

func (s *sqliteConn) InPipeline() bool { return s.scr != nil && s.scr.InPipeline() }

func (s *sqliteConn) Statement(ctx context.Context, mode target.QueryMode, name, query string, params [][]byte, rows target.RowSink) error {
	return s.script().Statement(ctx, mode, name, query, params, rows)
}

func (s *sqliteConn) Prepare(ctx context.Context, name, query string) error {
	return s.script().Prepare(ctx, name, query)
}

func (s *sqliteConn) StartPipeline(ctx context.Context) error { return s.script().StartPipeline(ctx) }

func (s *sqliteConn) SyncPipeline(ctx context.Context) error {
	if !s.InPipeline() {
		return target.ErrNoPipeline
	}
	return s.scr.SyncPipeline(ctx)
}

func (s *sqliteConn) EndPipeline(ctx context.Context) error {
	if !s.InPipeline() {
		return target.ErrNoPipeline
	}
	return s.scr.EndPipeline(ctx)
}
