package pg

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txnbench/txnbench/internal/target"
)

type pgTarget struct {
	cfg     *pgx.ConnConfig
	dialect target.Dialect
	// begin starts its sessions' transactions: BEGIN, or BEGIN ISOLATION
	// LEVEL ... once Isolate chose one.
	begin string

	// spare is the session Open read the server's version on, handed to
	// the first Connect within spareFor (a run's first session comes a
	// few milliseconds after Open: issue 40's start-up, one login fewer)
	// and closed after it otherwise, so no idle session of txnbench's
	// stays on the server.
	mu    sync.Mutex
	spare *pgConn
}

// spareFor is how long Open's session waits for the first Connect.
const spareFor = time.Second

func openPG(ctx context.Context, url string) (target.Target, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %s: check its syntax (postgres://USER@HOST:PORT/DB, with the password after USER: and special characters percent-encoded)", target.ErrMalformedURL, target.MaskURL(url), target.MaskURL(parseErrorText(err)))
	}
	if cfg.ConnectTimeout == 0 && !strings.Contains(url, "connect_timeout=") {
		// connect_timeout=0 waits as long as it takes, as in libpq.
		cfg.ConnectTimeout = 10 * time.Second
	}
	if !strings.Contains(url, "statement_cache_capacity") {
		// Workloads use a few dozen statements; pgx's default of 512
		// cached statements costs 40 KB per connection for nothing.
		cfg.StatementCacheCapacity = 64
	}
	if cfg.DefaultQueryExecMode != pgx.QueryExecModeCacheDescribe && !strings.Contains(url, "description_cache_capacity") {
		// Only that mode reads the description cache, whose map pgx
		// sizes for 512 statements: 30 KB per session for nothing.
		cfg.DescriptionCacheCapacity = 0
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "txnbench"
	}
	if dial := cfg.DialFunc; dial != nil {
		// Reads and writes without the scheduler's system call
		// bookkeeping: see rawConn.
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wrapRaw(c), nil
		}
	}
	t := &pgTarget{cfg: cfg, begin: "BEGIN"}
	c, err := t.Connect(ctx)
	if err != nil {
		return nil, target.ConnectError(url, err)
	}
	kept := false
	defer func() {
		if !kept {
			c.Close(ctx)
		}
	}()
	if p, ok := c.(*pgConn); ok {
		if _, isTLS := p.c.PgConn().Conn().(*tls.Conn); !isTLS {
			skipRefusedTLS(cfg)
		}
	}
	// One statement, so one transaction of the server's (the telemetry
	// counts what its own sessions commit, a reopened one's included).
	rows, err := c.Query(ctx, "SELECT version(), current_setting('transaction_isolation')")
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	var banner, level string
	for rows.Next() {
		if err := rows.Scan(&banner, &level); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading the server version: %w", err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	t.dialect = target.ParseBanner(banner)
	if t.dialect.Isolation, err = target.ParseIsolation(level); err != nil {
		return nil, fmt.Errorf("reading the isolation level: %w", err)
	}
	if p, ok := c.(*pgConn); ok {
		kept, t.spare = true, p
		time.AfterFunc(spareFor, t.dropSpare)
	}
	return t, nil
}

// quiet reports whether p's socket is open with nothing unread (see
// rawConn.quiet): where that cannot be told, p is not handed out.
func quiet(p *pgConn) bool {
	nc := p.c.PgConn().Conn()
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	q, ok := nc.(interface{ quiet() bool })
	return ok && !p.c.IsClosed() && q.quiet()
}

// takeSpare is Open's session, once, or nil.
func (t *pgTarget) takeSpare() *pgConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.spare
	t.spare = nil
	return p
}

// dropSpare closes Open's session if no Connect took it.
func (t *pgTarget) dropSpare() {
	if p := t.takeSpare(); p != nil {
		ctx, cancel := context.WithTimeout(context.Background(), target.EndWait)
		defer cancel()
		p.Close(ctx)
	}
}

// skipRefusedTLS makes cfg's sessions start without TLS when its first
// session, under sslmode=prefer (the default) on one host, ran without it:
// the server refused TLS. pgx asks for TLS on a socket and, refused, opens
// a second one for the session without (libpq goes on on the same
// socket), so every later session would cost two TCP connections and the
// server two backends. prefer promises no TLS, and the server said no.
func skipRefusedTLS(cfg *pgx.ConnConfig) {
	if cfg.TLSConfig == nil || len(cfg.Fallbacks) != 1 {
		return
	}
	f := cfg.Fallbacks[0]
	if f.TLSConfig != nil || f.Host != cfg.Host || f.Port != cfg.Port {
		return
	}
	cfg.TLSConfig, cfg.Fallbacks = nil, nil
}

// Isolate makes every transaction begin at l (BEGIN ISOLATION LEVEL),
// which holds through every pooler and connection strategy, since it
// keeps no session state. Straight to the server (direct), the sessions
// also start with default_transaction_isolation set to l, for what runs
// outside BEGIN (a statement on its own, a script's own BEGIN); a pooler
// refuses that startup parameter, and one in transaction mode would not
// keep it.
func (t *pgTarget) Isolate(l target.Isolation, direct bool) error {
	t.dropSpare() // it began with neither
	t.begin = "BEGIN ISOLATION LEVEL " + l.SQL()
	if direct {
		t.cfg.RuntimeParams["default_transaction_isolation"] = strings.ToLower(l.SQL())
	}
	return nil
}

// parseErrorText strips pgx's habit of quoting the whole connection string.
func parseErrorText(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		return pe.Unwrap().Error()
	}
	return err.Error()
}

func (t *pgTarget) Dialect() target.Dialect { return t.dialect }
func (t *pgTarget) Close() error            { t.dropSpare(); return nil }

func (t *pgTarget) Connect(ctx context.Context) (target.Conn, error) {
	if p := t.takeSpare(); p != nil {
		if quiet(p) {
			return p, nil
		}
		p.Close(ctx) // its server or pooler went away, or ended it
	}
	c, err := pgx.ConnectConfig(ctx, t.cfg)
	if err != nil {
		return nil, refusedAuth(serverFirst(err))
	}
	registerArrayCodecs(c.TypeMap())
	p := newPGConn(c, t.begin)
	return &p, nil
}

// newPGConn wraps c, a session of its own or a pool's.
func newPGConn(c *pgx.Conn, begin string) pgConn {
	m := c.Config().DefaultQueryExecMode
	return pgConn{c: c, begin: begin, prepares: m == pgx.QueryExecModeCacheStatement || m == pgx.QueryExecModeCacheDescribe}
}

type pgConn struct {
	c            *pgx.Conn
	inTx         bool
	beginPending bool   // BEGIN goes out with the next statement
	begin        string // the statement that begins a transaction (pgTarget.begin)
	batch        pgx.Batch
	scr          *pgScript // the session's script state, once looked up
	// prepares: pgx prepares or describes each new statement (the cache
	// modes); seen holds the statements this session has sent.
	prepares bool
	seen     map[string]struct{}
	// once holds the statements this session ran once outside a
	// transaction block without preparing them (see autocommit).
	once map[string]struct{}
}

// How autocommit runs a statement outside a transaction block.
const (
	autoAsIs       = iota // prepared already, or the mode prepares nothing
	autoUnprepared        // the first time: unprepared, in one round trip
	autoInBlock           // the second time: prepared inside BEGIN ... COMMIT
)

// autocommit says how to run sql outside a transaction block. pgx prepares
// (or describes) a statement new to the session in a round trip of its
// own, which outside a block is a transaction of its own on the server:
// a single-statement transaction on a new session (--conn per-txn) would
// count twice in pg_stat_database.xact_commit. So the first time a
// session runs such a statement it goes out unprepared (Parse, Bind,
// Execute in one round trip: one transaction), and the second time it is
// prepared inside BEGIN ... COMMIT, which the server counts as the one
// transaction it is; from then on it runs prepared as it is.
func (p *pgConn) autocommit(sql string) int {
	if p.inTx || !p.prepares {
		return autoAsIs
	}
	if _, ok := p.seen[sql]; ok {
		return autoAsIs
	}
	if _, ok := p.once[sql]; !ok {
		if p.once == nil || len(p.once) > maxSeen {
			p.once = map[string]struct{}{}
		}
		p.once[sql] = struct{}{}
		return autoUnprepared
	}
	delete(p.once, sql)
	return autoInBlock
}

// unprepared puts the exec mode that prepares nothing before args.
func unprepared(args []any) []any {
	return append([]any{pgx.QueryExecModeExec}, args...)
}

// committingRows commits the block autocommit opened once its rows are
// read and closed.
type committingRows struct {
	target.Rows
	ctx    context.Context
	p      *pgConn
	err    error
	closed bool
}

// Unwrap is the rows it commits after, for target.FirstColumn.
func (r *committingRows) Unwrap() target.Rows { return r.Rows }

func (r *committingRows) Close() {
	r.Rows.Close()
	if r.closed {
		return
	}
	r.closed = true
	if r.Rows.Err() != nil {
		r.p.Rollback(context.WithoutCancel(r.ctx))
		return
	}
	r.err = r.p.Commit(r.ctx)
}

func (r *committingRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// send queues BEGIN when it is pending, then sql, and sends them together.
func (p *pgConn) send(ctx context.Context, sql string, args []any, commit bool) pgx.BatchResults {
	p.batch.QueuedQueries = p.batch.QueuedQueries[:0]
	if p.beginPending {
		p.ran(p.begin)
		p.batch.Queue(p.begin)
	}
	p.batch.Queue(sql, args...)
	if commit {
		p.batch.Queue("COMMIT")
	}
	return p.c.SendBatch(ctx, &p.batch)
}

// begun reads the result of a BEGIN sent by send.
func (p *pgConn) begun(br pgx.BatchResults) error {
	if !p.beginPending {
		return nil
	}
	p.beginPending = false
	_, err := br.Exec()
	return err
}

// beginFirst sends a pending BEGIN on its own before a statement this
// session has not run yet: pgx prepares (or describes) new statements in a
// round trip of their own, which outside a transaction block is a
// transaction of its own on the server, counted in
// pg_stat_database.xact_commit. Inside the block it is not, so the server
// counts the commits the workload made. The first time a session runs a
// statement again, BEGIN itself is prepared inside the block (running it
// there only draws a warning), so that from then on BEGIN goes out with
// the next statement again, in one round trip.
func (p *pgConn) beginFirst(ctx context.Context, sql string, commit bool) error {
	if !p.beginPending || !p.prepares {
		return nil
	}
	_, b := p.seen[p.begin]
	_, s := p.seen[sql]
	_, c := p.seen["COMMIT"]
	if b && s && (c || !commit) {
		return nil
	}
	p.beginPending = false
	if _, err := p.c.PgConn().Exec(ctx, p.begin).ReadAll(); err != nil { // simple protocol: nothing to prepare
		return err
	}
	if !b && s {
		rows, err := p.c.Query(ctx, p.begin) // Query: Exec without arguments would not prepare it
		if err != nil {
			return err
		}
		if rows.Close(); rows.Err() != nil {
			return rows.Err()
		}
		p.ran(p.begin)
	}
	return nil
}

// maxSeen bounds the statements a session remembers (pgx caches 64).
const maxSeen = 256

// ran notes statements pgx has prepared or described on this session.
func (p *pgConn) ran(sqls ...string) {
	if !p.prepares {
		return
	}
	if p.seen == nil || len(p.seen) > maxSeen {
		p.seen = map[string]struct{}{} // a workload of ever new statements: start again
	}
	for _, s := range sqls {
		if _, ok := p.seen[s]; !ok {
			p.seen[s] = struct{}{}
		}
	}
}

func (p *pgConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if len(args) > 0 { // without arguments pgx prepares nothing
		switch p.autocommit(sql) {
		case autoUnprepared:
			tag, err := p.c.Exec(ctx, sql, unprepared(args)...)
			return tag.RowsAffected(), err
		case autoInBlock:
			p.Begin(ctx)
			n, err := p.Exec(ctx, sql, args...)
			if err != nil {
				p.Rollback(context.WithoutCancel(ctx))
				return n, err
			}
			return n, p.Commit(ctx)
		}
	}
	if err := p.beginFirst(ctx, sql, false); err != nil {
		return 0, err
	}
	p.ran(sql)
	if !p.beginPending {
		tag, err := p.c.Exec(ctx, sql, args...)
		return tag.RowsAffected(), err
	}
	br := p.send(ctx, sql, args, false)
	err := p.begun(br)
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag.RowsAffected(), err
}

func (p *pgConn) Query(ctx context.Context, sql string, args ...any) (target.Rows, error) {
	switch p.autocommit(sql) {
	case autoUnprepared:
		return p.c.Query(ctx, sql, unprepared(args)...)
	case autoInBlock:
		p.Begin(ctx)
		rows, err := p.Query(ctx, sql, args...)
		if err != nil {
			p.Rollback(context.WithoutCancel(ctx))
			return nil, err
		}
		return &committingRows{Rows: rows, ctx: ctx, p: p}, nil
	}
	if err := p.beginFirst(ctx, sql, false); err != nil {
		return nil, err
	}
	p.ran(sql)
	if !p.beginPending {
		return p.c.Query(ctx, sql, args...)
	}
	br := p.send(ctx, sql, args, false)
	if err := p.begun(br); err != nil {
		br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{Rows: rows, br: br}, nil
}

// batchRows closes the batch with the rows.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

func (p *pgConn) Begin(context.Context) error {
	p.inTx, p.beginPending = true, true
	return nil
}

func (p *pgConn) Commit(ctx context.Context) error {
	if p.beginPending { // nothing was sent: nothing to commit
		p.inTx, p.beginPending = false, false
		return nil
	}
	p.inTx = false
	tag, err := p.c.Exec(ctx, "COMMIT")
	return commitResult(tag, err)
}

func (p *pgConn) ExecCommit(ctx context.Context, sql string, args ...any) (int64, error) {
	if err := p.beginFirst(ctx, sql, true); err != nil {
		p.Rollback(context.WithoutCancel(ctx)) // a BEGIN that went out is ended
		return 0, err
	}
	p.ran(sql, "COMMIT")
	br := p.send(ctx, sql, args, true)
	p.inTx = false
	var tag pgconn.CommandTag
	err := p.begun(br)
	if err == nil {
		tag, err = br.Exec()
	}
	if err == nil {
		err = commitResult(br.Exec())
		if err == nil {
			// Committed: whatever closing the batch says (the server may be
			// going away) cannot undo that.
			br.Close()
			return tag.RowsAffected(), nil
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if !p.c.IsClosed() {
		// A failed statement leaves the transaction aborted; end it.
		p.c.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	}
	return tag.RowsAffected(), err
}

// commitResult: the server answers COMMIT of a failed transaction with
// ROLLBACK, which is a failure to commit.
func commitResult(tag pgconn.CommandTag, err error) error {
	if err == nil && tag.String() == "ROLLBACK" {
		return errRolledBack
	}
	return err
}

var errRolledBack = errors.New("commit failed: the transaction had already failed and was rolled back")

func (p *pgConn) Rollback(ctx context.Context) error {
	if !p.inTx {
		return nil
	}
	sent := !p.beginPending
	p.inTx, p.beginPending = false, false
	if !sent || p.c.IsClosed() {
		return nil
	}
	// Sent even when ctx is done (the work was cancelled midway): skipped,
	// it would leave the transaction open on a session that believes it
	// ended, and the session's next statements would run, and be lost, in
	// it.
	ectx, cancel := target.Ending(ctx)
	defer cancel()
	_, err := p.c.Exec(ectx, "ROLLBACK")
	return err
}

func (p *pgConn) Broken() bool { return p.c.IsClosed() }

func (p *pgConn) Close(ctx context.Context) error {
	p.closeScript()
	return p.c.Close(ctx)
}

var (
	_ target.ScriptConn   = (*pgConn)(nil)
	_ target.ScriptConn   = (*pooledPG)(nil)
	_ target.Copier       = (*pgConn)(nil)
	_ target.BackendPIDer = (*pgConn)(nil)
)
