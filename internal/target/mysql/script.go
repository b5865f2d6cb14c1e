package mysql

import (
	"context"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
)

// The pgbench script engine on MySQL-protocol sessions is target's, on
// database/sql, with the statements' $n placeholders made ?, and END (a
// PostgreSQL transaction's end, which pgbench's builtins use; MySQL has no
// such statement) sent as COMMIT.

// commitSpelling returns COMMIT for a statement that is END alone, after
// any leading comments (the op's tag), which it keeps.
func commitSpelling(query string) string {
	body := strings.TrimLeft(query, " \t\r\n")
	for strings.HasPrefix(body, "/*") {
		i := strings.Index(body, "*/")
		if i < 0 {
			return query
		}
		body = strings.TrimLeft(body[i+2:], " \t\r\n")
	}
	if !strings.EqualFold(strings.TrimRight(body, "; \t\r\n"), "END") {
		return query
	}
	return query[:len(query)-len(body)] + "COMMIT"
}

func (s *mysqlConn) script() *target.SQLScript {
	if s.scr == nil {
		s.scr = target.NewSQLScript(s.c, spelled)
	}
	return s.scr
}

func (s *mysqlConn) closeScript() {
	if s.scr != nil {
		s.scr.Close()
		s.scr = nil
	}
}

// InTransaction follows the transaction statements a script sends and
// Conn's own Begin.
func (s *mysqlConn) InTransaction() bool { return s.inTx || s.scr != nil && s.scr.InTransaction() }

func (s *mysqlConn) InPipeline() bool { return s.scr != nil && s.scr.InPipeline() }

func (s *mysqlConn) Statement(ctx context.Context, mode target.QueryMode, name, query string, params [][]byte, rows target.RowSink) error {
	return s.check(s.script().Statement(ctx, mode, name, commitSpelling(query), params, rows))
}

func (s *mysqlConn) Prepare(ctx context.Context, name, query string) error {
	return s.check(s.script().Prepare(ctx, name, commitSpelling(query)))
}

func (s *mysqlConn) StartPipeline(ctx context.Context) error {
	return s.script().StartPipeline(ctx)
}

func (s *mysqlConn) SyncPipeline(ctx context.Context) error {
	return s.check(s.script().SyncPipeline(ctx))
}

func (s *mysqlConn) EndPipeline(ctx context.Context) error {
	return s.check(s.script().EndPipeline(ctx))
}

var _ target.ScriptConn = (*mysqlConn)(nil)
