package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/txnbench/txnbench/internal/target"
)

// pgScriptKey is where a session's script state lives in pgconn's custom
// data, so that it survives a pool handing the session out again.
const pgScriptKey = "txnbench.script"

// pgScript is a PostgreSQL session's state for scripts.
type pgScript struct {
	prepared map[string]*pgconn.StatementDescription // prepared on this session
	// last is the statement prepare found or prepared last: a script of
	// one statement (select-only) runs it again with no map lookup by
	// name (strhash and the map's probe, ~110 instructions a transaction).
	last   *pgconn.StatementDescription
	cols   []string          // column names of the current result
	vals   [][]byte          // a DataRow's values (answers)
	begins map[string]string // a script's BEGINs, at the level (scriptBegin)

	w wire // a statement's messages, in a reused buffer

	pipe      *pgconn.Pipeline
	pipeSinks []target.RowSink // queued statements' sinks, nil for a Prepare
	syncs     int              // synchronization points sent

	// One context at a time is watched for the whole session, rather
	// than one per statement as pgconn does (which allocates each time).
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

// begins is what a script's own bare BEGIN may say (its ; stripped).
var begins = []string{"BEGIN", "BEGIN TRANSACTION", "BEGIN WORK", "START TRANSACTION"}

// scriptBegin is sql, or the session's begin (pgTarget.begin) in its place
// when sql is a bare BEGIN, after the comment that tags it if any: a
// script's own transactions start at --isolation's level through a pooler
// too, where no session setting holds. Each rewritten statement is kept,
// so that running it again allocates nothing.
func (p *pgConn) scriptBegin(sql string) string {
	if p.begin == "BEGIN" {
		return sql
	}
	tag, rest := "", sql
	if strings.HasPrefix(rest, "/*") {
		if i := strings.Index(rest, "*/"); i >= 0 {
			tag, rest = rest[:i+2]+" ", rest[i+2:]
		}
	}
	if len(rest) > len("START TRANSACTION;")+8 {
		return sql
	}
	bare := strings.TrimSuffix(strings.TrimSpace(rest), ";")
	for _, b := range begins {
		if strings.EqualFold(bare, b) {
			s := p.script()
			if r, ok := s.begins[sql]; ok {
				return r
			}
			if s.begins == nil || len(s.begins) > maxSeen {
				s.begins = map[string]string{}
			}
			s.begins[sql] = tag + p.begin
			return s.begins[sql]
		}
	}
	return sql
}

func (p *pgConn) Statement(ctx context.Context, mode target.QueryMode, name, sql string, params [][]byte, rows target.RowSink) error {
	sql = p.scriptBegin(sql)
	s := p.script()
	if s.pipe != nil {
		return p.queue(ctx, s, mode, name, sql, params, rows)
	}
	pc := p.c.PgConn()
	if err := s.watch(ctx, pc); err != nil {
		return err
	}
	// The messages go out as libpq sends them for PQsendQuery,
	// PQsendQueryParams and PQsendQueryPrepared (written by wire straight
	// into one buffer), and the answers are read here rather than by
	// pgconn's result readers, which copy the command tag and column names
	// of every result.
	var fields []pgconn.FieldDescription
	var prepErr error
	switch mode {
	case target.QuerySimple:
		if len(params) > 0 {
			return target.ErrSimpleParams
		}
		s.w.query(sql)
	case target.QueryExtended:
		s.w.parse(sql)
		s.w.bind("", params)
		if rows != nil {
			s.w.describePortal()
		}
		s.w.execute()
		s.w.sync()
	case target.QueryPrepared:
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
		s.w.bind(name, params)
		s.w.execute()
		s.w.sync()
	default:
		return fmt.Errorf("unknown query mode %d", mode)
	}
	err := s.roundTrip(pc, fields, rows)
	switch {
	case prepErr != nil && err != nil:
		err = &target.PrepareError{Prepare: prepErr, Err: err}
	case mode == target.QueryPrepared:
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

var errCopy = errors.New("COPY is not supported in pgbench, aborting")

// roundTrip sends the statement's messages and reads the answers up to
// ReadyForQuery, passing rows to sink. fields describe the rows when no
// RowDescription comes (a prepared statement executed without Describe).
// The first error the server reports is returned; a connection that fails
// is closed, so that Broken reports it.
func (s *pgScript) roundTrip(pc *pgconn.PgConn, fields []pgconn.FieldDescription, sink target.RowSink) error {
	// pgconn may hold bytes read ahead, or a background read: its own
	// reading then (SyncConn: nothing pending, or a ping to settle it).
	ac, _ := pc.Conn().(answerConn)
	if ac != nil && pc.SyncConn(context.Background()) != nil {
		ac = nil
	}
	if err := s.w.send(pc.Conn()); err != nil {
		s.abandon(pc)
		return err
	}
	if sink != nil {
		s.cols = s.cols[:0]
		for i := range fields {
			s.cols = append(s.cols, fields[i].Name)
		}
	}
	var e exchange
	if ac != nil && s.answers(ac, pc.TxStatus(), &e, sink) {
		return e.first
	}
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			s.abandon(pc)
			if e.first != nil {
				return e.first
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
			e.row(s, sink, m.Values)
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
			e.end(sink)
		case *pgproto3.ErrorResponse:
			if e.first == nil {
				e.first = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.CopyInResponse:
			pc.Frontend().Send(&pgproto3.CopyFail{Message: errCopy.Error()})
			if err := pc.Frontend().Flush(); err != nil {
				s.abandon(pc)
				return err
			}
			if e.first == nil {
				e.first = errCopy
			}
		case *pgproto3.CopyOutResponse, *pgproto3.CopyBothResponse:
			if e.first == nil {
				e.first = errCopy
			}
		case *pgproto3.ReadyForQuery:
			if e.first == nil {
				e.first = e.serr
			}
			return e.first
		}
	}
}

// read passes one pipelined result's rows to sink; without a sink the
// rows are skipped.
func (s *pgScript) read(rr *pgconn.ResultReader, n int, sink target.RowSink) error {
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
	sql = p.scriptBegin(sql)
	s := p.script()
	if s.pipe != nil {
		return target.ErrPipelineOpen
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
		return nil, target.ErrUnnamedPrepared
	}
	if sd := s.last; sd != nil && sd.Name == name && sd.SQL == sql {
		return sd, nil
	}
	sd, ok := s.prepared[name]
	if ok && sd.SQL == sql {
		s.last = sd
		return sd, nil
	}
	if ok {
		// The name was used for another statement: replace it.
		s.last = nil
		if err := pc.Deallocate(context.Background(), name); err != nil {
			return nil, err
		}
		delete(s.prepared, name)
	}
	sd, err := pc.Prepare(context.Background(), name, sql, nil)
	if err != nil {
		return nil, pooledPrepareError(err, name, false)
	}
	s.prepared[name], s.last = sd, sd
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

func (p *pgConn) queue(ctx context.Context, s *pgScript, mode target.QueryMode, name, sql string, params [][]byte, rows target.RowSink) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch mode {
	case target.QueryExtended:
		s.pipe.SendQueryParams(sql, params, nil, nil, nil)
	case target.QueryPrepared:
		if name == "" {
			return target.ErrUnnamedPrepared
		}
		if _, ok := s.prepared[name]; !ok {
			// Prepared inside the pipeline; Prepare beforehand avoids it.
			s.pipe.SendPrepare(name, sql, nil)
			s.pipeSinks = append(s.pipeSinks, nil)
			s.prepared[name] = &pgconn.StatementDescription{Name: name, SQL: sql}
		}
		s.pipe.SendQueryPrepared(name, params, nil, nil)
	default:
		return target.ErrSimplePipeline
	}
	s.pipeSinks = append(s.pipeSinks, rows)
	return nil
}

func (p *pgConn) SyncPipeline(ctx context.Context) error {
	s := p.script()
	if s.pipe == nil {
		return target.ErrNoPipeline
	}
	s.pipe.SendPipelineSync()
	s.syncs++
	return ctxErr(ctx, s.pipe.Flush())
}

func (p *pgConn) EndPipeline(ctx context.Context) error {
	s := p.script()
	if s.pipe == nil {
		return target.ErrNoPipeline
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
			var sink target.RowSink
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
