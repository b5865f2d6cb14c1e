package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// QueryMode is how the pgbench script engine sends SQL (pgbench -M).
type QueryMode uint8

// The query modes of pgbench -M.
const (
	// QuerySimple sends the SQL text with variables substituted, by the
	// simple query protocol (several statements may be joined with \;).
	QuerySimple QueryMode = iota
	// QueryExtended sends one statement with $n parameters (as text) by the
	// extended protocol, parsing it every time.
	QueryExtended
	// QueryPrepared prepares each statement once per session under a name,
	// then executes it with parameters.
	QueryPrepared
)

var queryModeNames = [...]string{QuerySimple: "simple", QueryExtended: "extended", QueryPrepared: "prepared"}

// String returns the mode's name as pgbench -M spells it.
func (m QueryMode) String() string {
	if int(m) < len(queryModeNames) {
		return queryModeNames[m]
	}
	return fmt.Sprintf("QueryMode(%d)", m)
}

// ParseQueryMode reads a pgbench -M argument.
func ParseQueryMode(s string) (QueryMode, error) {
	for m, n := range queryModeNames {
		if s == n {
			return QueryMode(m), nil
		}
	}
	return 0, fmt.Errorf("invalid query mode (-M): %q", s)
}

// RowSink receives the results of a statement as text. A statement has one
// result, or one per statement of a \; compound in simple mode (numbered
// from 0). Row is called for each row with the column names and values (nil
// for SQL NULL); both slices are only valid during the call. EndResult is
// called after each result's rows with their number (0 for a command that
// returns no rows). An error from the sink is returned by Statement after
// the results have been read.
type RowSink interface {
	Row(result int, cols []string, vals [][]byte) error
	EndResult(result int, rows int) error
}

// ScriptConn is raw statement access for the pgbench script engine. Conns
// of every target (connected or pooled) satisfy it: type-assert a Conn.
// Its statements go around Conn's transaction handling: scripts send their
// own BEGIN and END, and a Begin pending on the Conn is not sent.
type ScriptConn interface {
	Conn
	// Statement runs sql. In extended and prepared mode params are the
	// values of $1..$n as text (a nil element is SQL NULL). In prepared
	// mode sql is prepared under name the first time this session sees
	// the name (or sees it with another text), and executed by name
	// afterwards. sql is not kept after the call in simple and extended
	// mode. rows may be nil.
	// Inside a pipeline the statement is only queued: its results, and
	// its error, come with EndPipeline.
	Statement(ctx context.Context, mode QueryMode, name, sql string, params [][]byte, rows RowSink) error
	// Prepare prepares sql under name unless this session already has.
	// pgbench prepares the statements of a pipeline before starting it.
	Prepare(ctx context.Context, name, sql string) error
	// InTransaction reports whether the session is inside a transaction
	// block, a failed one included.
	InTransaction() bool
	// StartPipeline enters pipeline mode (extended and prepared mode only).
	StartPipeline(ctx context.Context) error
	// SyncPipeline sends a synchronization point; the results are still
	// read by EndPipeline.
	SyncPipeline(ctx context.Context) error
	// EndPipeline sends a last synchronization point, reads every result,
	// leaves pipeline mode and returns the first error. After an error
	// the server skips the statements up to the next synchronization
	// point.
	EndPipeline(ctx context.Context) error
	// InPipeline reports whether a pipeline is open.
	InPipeline() bool
}

var (
	_ ScriptConn = (*pgConn)(nil)
	_ ScriptConn = (*pooledPG)(nil)
	_ ScriptConn = (*sqliteConn)(nil)
)

var (
	errPipelineOpen    = errors.New("a pipeline is open")
	errNoPipeline      = errors.New("not in pipeline mode")
	errSimplePipeline  = errors.New("cannot use pipeline mode with the simple query protocol")
	errSimpleParams    = errors.New("the simple query protocol takes no parameters")
	errUnnamedPrepared = errors.New("a prepared statement needs a name")
)

// pgScriptKey is where a session's script state lives in pgconn's custom
// data, so that it survives a pool handing the session out again.
const pgScriptKey = "txnbench.script"

// pgScript is a PostgreSQL session's state for scripts.
type pgScript struct {
	prepared map[string]*pgconn.StatementDescription // prepared on this session
	cols     []string                                // column names of the current result

	// messages, reused
	query    pgproto3.Query
	parse    pgproto3.Parse
	bind     pgproto3.Bind
	describe pgproto3.Describe
	execute  pgproto3.Execute
	sync     pgproto3.Sync

	pipe      *pgconn.Pipeline
	pipeSinks []RowSink // queued statements' sinks, nil for a Prepare
	syncs     int       // synchronization points sent

	// One context at a time is watched for the whole session, rather
	// than one per statement as pgconn does (which allocates each time).
	mu    sync.Mutex
	ctx   context.Context
	stop  func() bool
	fired chan struct{} // closed when the watched context's cancel is done
}

func (p *pgConn) script() *pgScript {
	if p.scr != nil {
		return p.scr
	}
	pc := p.c.PgConn()
	s, ok := pc.CustomData()[pgScriptKey].(*pgScript)
	if !ok {
		s = &pgScript{prepared: map[string]*pgconn.StatementDescription{}}
		s.describe.ObjectType = 'P'
		pc.CustomData()[pgScriptKey] = s
	}
	p.scr = s
	return s
}

// watch makes ctx's cancellation cancel the session's running statement:
// a cancel request, then a read deadline if the server does not answer.
func (s *pgScript) watch(ctx context.Context, pc *pgconn.PgConn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if ctx == s.ctx {
		return nil
	}
	s.unwatch(pc)
	s.ctx = ctx
	if ctx.Done() == nil {
		return nil
	}
	fired := make(chan struct{})
	s.fired = fired
	s.stop = context.AfterFunc(ctx, func() {
		defer close(fired)
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		pc.CancelRequest(cctx)
		pc.Conn().SetDeadline(time.Now().Add(2 * time.Second))
	})
	return nil
}

// unwatch stops watching; a deadline set by a cancellation is lifted.
func (s *pgScript) unwatch(pc *pgconn.PgConn) {
	if s.stop != nil && !s.stop() {
		<-s.fired
		pc.Conn().SetDeadline(time.Time{})
	}
	s.ctx, s.stop, s.fired = nil, nil, nil
}

// closeScript releases the session's script state when it disconnects.
func (p *pgConn) closeScript() {
	if s, ok := p.c.PgConn().CustomData()[pgScriptKey].(*pgScript); ok && s.stop != nil {
		s.stop()
	}
}

// ctxErr prefers the context's error when a statement failed because the
// run was stopping.
func ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

func (p *pgConn) InTransaction() bool {
	st := p.c.PgConn().TxStatus()
	return st == 'T' || st == 'E'
}

func (p *pgConn) InPipeline() bool { return p.script().pipe != nil }

func (p *pgConn) Statement(ctx context.Context, mode QueryMode, name, sql string, params [][]byte, rows RowSink) error {
	s := p.script()
	if s.pipe != nil {
		return p.queue(ctx, s, mode, name, sql, params, rows)
	}
	pc := p.c.PgConn()
	if err := s.watch(ctx, pc); err != nil {
		return err
	}
	// The messages go out as libpq sends them for PQsendQuery,
	// PQsendQueryParams and PQsendQueryPrepared, and the answers are read
	// here rather than by pgconn's result readers, which copy the command
	// tag and column names of every result.
	f := pc.Frontend()
	var fields []pgconn.FieldDescription
	var prepErr error
	switch mode {
	case QuerySimple:
		if len(params) > 0 {
			return errSimpleParams
		}
		s.query.String = sql
		f.SendQuery(&s.query)
	case QueryExtended:
		s.parse.Query = sql
		f.SendParse(&s.parse)
		s.bind.PreparedStatement, s.bind.Parameters = "", params
		f.SendBind(&s.bind)
		if rows != nil {
			f.SendDescribe(&s.describe)
		}
		f.SendExecute(&s.execute)
		f.SendSync(&s.sync)
	case QueryPrepared:
		sd, err := p.prepare(s, pc, name, sql)
		switch {
		case err == nil:
			fields = sd.Fields
		case refusedPrepare(err):
			// pgbench reports a PREPARE the server refused and executes
			// the statement all the same: the server's answer to that
			// is the statement's error.
			prepErr = err
		default:
			return ctxErr(ctx, err)
		}
		s.bind.PreparedStatement, s.bind.Parameters = name, params
		f.SendBind(&s.bind)
		f.SendExecute(&s.execute)
		f.SendSync(&s.sync)
	default:
		return fmt.Errorf("unknown query mode %d", mode)
	}
	s.bind.Parameters = nil
	err := s.roundTrip(pc, fields, rows)
	switch {
	case prepErr != nil && err != nil:
		err = &PrepareError{Prepare: prepErr, Err: err}
	case mode == QueryPrepared:
		err = pooledPrepareError(err, name, true)
	}
	return ctxErr(ctx, err)
}

// refusedPrepare reports whether the server refused a statement (not a
// name a pooler's other session had prepared).
func refusedPrepare(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code != "42P05"
}

// PrepareError is a statement the server refused to prepare and that was
// executed all the same, as pgbench does: Prepare is the refusal, Err the
// execution's error (which it wraps).
type PrepareError struct{ Prepare, Err error }

func (e *PrepareError) Error() string { return e.Err.Error() }
func (e *PrepareError) Unwrap() error { return e.Err }

var errCopy = errors.New("COPY is not supported in pgbench, aborting")

// roundTrip flushes the queued messages and reads the answers up to
// ReadyForQuery, passing rows to sink. fields describe the rows when no
// RowDescription comes (a prepared statement executed without Describe).
// The first error the server reports is returned; a connection that fails
// is closed, so that Broken reports it.
func (s *pgScript) roundTrip(pc *pgconn.PgConn, fields []pgconn.FieldDescription, sink RowSink) error {
	if err := pc.Frontend().Flush(); err != nil {
		s.abandon(pc)
		return err
	}
	if sink != nil {
		s.cols = s.cols[:0]
		for i := range fields {
			s.cols = append(s.cols, fields[i].Name)
		}
	}
	var first, serr error
	n, count := 0, 0
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			s.abandon(pc)
			if first != nil {
				return first
			}
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			if sink != nil {
				s.cols = s.cols[:0]
				for i := range m.Fields {
					s.cols = append(s.cols, string(m.Fields[i].Name))
				}
			}
		case *pgproto3.DataRow:
			if sink != nil && serr == nil {
				serr = sink.Row(n, s.cols, m.Values)
			}
			count++
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
			if sink != nil && serr == nil {
				serr = sink.EndResult(n, count)
			}
			n, count = n+1, 0
		case *pgproto3.ErrorResponse:
			if first == nil {
				first = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.CopyInResponse:
			pc.Frontend().Send(&pgproto3.CopyFail{Message: errCopy.Error()})
			if err := pc.Frontend().Flush(); err != nil {
				s.abandon(pc)
				return err
			}
			if first == nil {
				first = errCopy
			}
		case *pgproto3.CopyOutResponse, *pgproto3.CopyBothResponse:
			if first == nil {
				first = errCopy
			}
		case *pgproto3.ReadyForQuery:
			if first == nil {
				first = serr
			}
			return first
		}
	}
}

// read passes one pipelined result's rows to sink; without a sink the
// rows are skipped.
func (s *pgScript) read(rr *pgconn.ResultReader, n int, sink RowSink) error {
	if sink == nil {
		for rr.NextRow() {
		}
		return nil
	}
	var err error
	count := 0
	for rr.NextRow() {
		if count == 0 {
			fds := rr.FieldDescriptions()
			s.cols = s.cols[:0]
			for i := range fds {
				s.cols = append(s.cols, fds[i].Name)
			}
		}
		if err == nil {
			err = sink.Row(n, s.cols, rr.Values())
		}
		count++
	}
	if err == nil {
		err = sink.EndResult(n, count)
	}
	return err
}

// abandon closes a session whose protocol state is unknown.
func (s *pgScript) abandon(pc *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	pc.Close(ctx)
}

func (p *pgConn) Prepare(ctx context.Context, name, sql string) error {
	s := p.script()
	if s.pipe != nil {
		return errPipelineOpen
	}
	pc := p.c.PgConn()
	if err := s.watch(ctx, pc); err != nil {
		return err
	}
	_, err := p.prepare(s, pc, name, sql)
	return ctxErr(ctx, err)
}

func (p *pgConn) prepare(s *pgScript, pc *pgconn.PgConn, name, sql string) (*pgconn.StatementDescription, error) {
	if name == "" {
		return nil, errUnnamedPrepared
	}
	sd, ok := s.prepared[name]
	if ok && sd.SQL == sql {
		return sd, nil
	}
	if ok {
		// The name was used for another statement: replace it.
		if err := pc.Deallocate(context.Background(), name); err != nil {
			return nil, err
		}
		delete(s.prepared, name)
	}
	sd, err := pc.Prepare(context.Background(), name, sql, nil)
	if err != nil {
		return nil, pooledPrepareError(err, name, false)
	}
	s.prepared[name] = sd
	return sd, nil
}

// pooledPrepareError explains the errors a pooler in transaction mode
// causes with named prepared statements: PgBouncer before 1.21 (or without
// max_prepared_statements) runs a session's statements on whichever server
// connection is free, where the statement was never prepared, or was
// prepared by another client.
func pooledPrepareError(err error, name string, executing bool) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	if (executing && pgErr.Code == "26000") || (!executing && pgErr.Code == "42P05") {
		return fmt.Errorf("%w (prepared statement %q was prepared once on this session, but the server connection behind it changed: "+
			"a pooler in transaction mode such as PgBouncer before 1.21 does not keep named prepared statements; use -M extended, or a session-mode pool)", err, name)
	}
	return err
}

func (p *pgConn) StartPipeline(ctx context.Context) error {
	s := p.script()
	if s.pipe != nil {
		return errors.New("already in pipeline mode")
	}
	pc := p.c.PgConn()
	if err := s.watch(ctx, pc); err != nil {
		return err
	}
	s.pipe = pc.StartPipeline(context.Background())
	s.pipeSinks = s.pipeSinks[:0]
	s.syncs = 0
	return nil
}

func (p *pgConn) queue(ctx context.Context, s *pgScript, mode QueryMode, name, sql string, params [][]byte, rows RowSink) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch mode {
	case QueryExtended:
		s.pipe.SendQueryParams(sql, params, nil, nil, nil)
	case QueryPrepared:
		if name == "" {
			return errUnnamedPrepared
		}
		if _, ok := s.prepared[name]; !ok {
			// Prepared inside the pipeline; Prepare beforehand avoids it.
			s.pipe.SendPrepare(name, sql, nil)
			s.pipeSinks = append(s.pipeSinks, nil)
			s.prepared[name] = &pgconn.StatementDescription{Name: name, SQL: sql}
		}
		s.pipe.SendQueryPrepared(name, params, nil, nil)
	default:
		return errSimplePipeline
	}
	s.pipeSinks = append(s.pipeSinks, rows)
	return nil
}

func (p *pgConn) SyncPipeline(ctx context.Context) error {
	s := p.script()
	if s.pipe == nil {
		return errNoPipeline
	}
	s.pipe.SendPipelineSync()
	s.syncs++
	return ctxErr(ctx, s.pipe.Flush())
}

func (p *pgConn) EndPipeline(ctx context.Context) error {
	s := p.script()
	if s.pipe == nil {
		return errNoPipeline
	}
	pipe := s.pipe
	s.pipe = nil
	pipe.SendPipelineSync()
	s.syncs++
	var first error
	if err := pipe.Flush(); err != nil {
		first = err
	}
	next := 0 // index into pipeSinks of the next query result
	for synced := 0; synced < s.syncs; {
		res, err := pipe.GetResults()
		if err != nil {
			if first == nil {
				first = err
			}
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				break // the connection is gone
			}
			continue
		}
		switch r := res.(type) {
		case nil:
			if first == nil {
				first = errors.New("pipeline: results ended before the last synchronization point")
			}
			synced = s.syncs
		case *pgconn.PipelineSync:
			synced++
		case *pgconn.StatementDescription:
			next++
		case *pgconn.ResultReader:
			var sink RowSink
			// After an error the server skips statements, so later
			// results no longer line up with the queued sinks.
			if first == nil && next < len(s.pipeSinks) {
				sink = s.pipeSinks[next]
			}
			next++
			serr := s.read(r, 0, sink)
			if _, err := r.Close(); err != nil {
				serr = err
			}
			if first == nil {
				first = serr
			}
		}
	}
	if err := pipe.Close(); first == nil {
		first = err
	}
	s.pipeSinks = s.pipeSinks[:0]
	s.syncs = 0
	return ctxErr(ctx, first)
}

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

func (s *sqliteConn) Statement(ctx context.Context, mode QueryMode, name, query string, params [][]byte, rows RowSink) error {
	scr := s.script()
	if !scr.pipe {
		return s.statement(ctx, scr, mode, name, query, params, rows)
	}
	if mode == QuerySimple {
		return errSimplePipeline
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

func (s *sqliteConn) statement(ctx context.Context, scr *sqliteScript, mode QueryMode, name, query string, params [][]byte, rows RowSink) error {
	scr.args = scr.args[:0]
	for _, p := range params {
		if p == nil {
			scr.args = append(scr.args, nil)
		} else {
			scr.args = append(scr.args, string(p))
		}
	}
	switch mode {
	case QuerySimple:
		if len(params) > 0 {
			return errSimpleParams
		}
		for n, q := range splitSQLite(query) {
			if err := s.run(ctx, scr, nil, q, nil, n, rows); err != nil {
				return err
			}
		}
		return nil
	case QueryExtended:
		return s.run(ctx, scr, nil, query, scr.args, 0, rows)
	case QueryPrepared:
		if err := s.Prepare(ctx, name, query); err != nil {
			return err
		}
		return s.run(ctx, scr, scr.stmts[name].st, query, scr.args, 0, rows)
	}
	return fmt.Errorf("unknown query mode %d", mode)
}

func (s *sqliteConn) run(ctx context.Context, scr *sqliteScript, st *sql.Stmt, query string, args []any, n int, sink RowSink) error {
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
		return errUnnamedPrepared
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
		return errNoPipeline
	}
	s.endSegment(ctx)
	return nil
}

func (s *sqliteConn) EndPipeline(ctx context.Context) error {
	if !s.InPipeline() {
		return errNoPipeline
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
