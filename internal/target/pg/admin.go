package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/target"
)

func init() { pooler.RegisterConsole(console{}) }

// console opens a pooler's admin console for package pooler.
type console struct{}

// Open is OpenAdmin.
func (console) Open(url string) (pooler.Admin, error) { return OpenAdmin(url) }

// AdminWait bounds each reading of an Admin, connecting included: it is
// pooler.ConsoleWait.
const AdminWait = pooler.ConsoleWait

// Admin is a pooler's admin console (PgBouncer's SHOW STATS, SHOW POOLS:
// simple protocol only), its URL parsed once by OpenAdmin, and its one
// session: opened by the first reading, kept for the next, and opened
// again when it is lost (pooler.Admin).
type Admin struct {
	url string // as given, for the errors (which mask it)
	cfg *pgx.ConnConfig
	// life ends with Close (end): the readings under way and waiting
	// end with it.
	life context.Context
	end  context.CancelFunc
	// turn is held by the reading under way (or Close), which owns conn.
	turn chan struct{}
	conn *pgx.Conn // nil before the first reading and after a loss
}

// OpenAdmin reads url, the admin console of a pooler; a malformed one is
// an error of target.ErrMalformedURL. No session opens until a reading.
func OpenAdmin(url string) (*Admin, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", target.ErrMalformedURL, target.MaskURL(url), err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	life, end := context.WithCancel(context.Background())
	return &Admin{url: url, cfg: cfg, life: life, end: end, turn: make(chan struct{}, 1)}, nil
}

// errAdminClosed is a reading after Close.
var errAdminClosed = errors.New("the pooler's admin console is closed")

// Rows runs a statement on the console and returns its rows as text. It
// gives up after AdminWait (waiting for its turn included), or earlier
// with ctx; a console that did not answer in time is an error of class
// timeout (target.Classify). A session kept from an earlier reading that
// turns out lost (the pooler restarted, a proxy closed it while idle) is
// replaced and the statement run once more, so the reading sees what a
// new session would.
func (a *Admin) Rows(ctx context.Context, sql string) (rows []map[string]string, err error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, AdminWait)
	defer cancel()
	defer context.AfterFunc(a.life, cancel)() // Close ends it
	defer func() {
		switch {
		case err == nil:
		case a.life.Err() != nil:
			err = errAdminClosed
		case ctx.Err() != nil && parent.Err() == nil:
			err = fmt.Errorf("no answer to %s within %s: %w", sql, AdminWait, ctx.Err())
		}
	}()
	select {
	case a.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-a.turn }()
	if a.life.Err() != nil { // closed: no session opens again
		return nil, errAdminClosed
	}
	// Its time over while it waited: the session is left as it is, not
	// found lost for want of time.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept := a.conn != nil
	rows, err = a.rows(ctx, sql)
	if err != nil && kept && a.conn == nil && ctx.Err() == nil {
		rows, err = a.rows(ctx, sql)
	}
	return rows, err
}

// rows runs sql on the session, opening one first when there is none. A
// session that fails other than by the statement's own error is dropped.
func (a *Admin) rows(ctx context.Context, sql string) ([]map[string]string, error) {
	if a.conn == nil {
		c, err := pgx.ConnectConfig(ctx, a.cfg)
		if err != nil {
			return nil, target.ConnectError(a.url, refusedAuth(serverFirst(err)))
		}
		a.conn = c
	}
	out, err := query(ctx, a.conn, sql)
	var pe *pgconn.PgError
	if err != nil && (a.conn.IsClosed() || !errors.As(err, &pe)) {
		a.drop()
	}
	return out, err
}

// query runs sql on c, its rows as text (the simple protocol's values
// are).
func query(ctx context.Context, c *pgx.Conn, sql string) ([]map[string]string, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []map[string]string
	for rows.Next() {
		vals := rows.RawValues()
		m := make(map[string]string, len(vals))
		for i, f := range rows.FieldDescriptions() {
			m[f.Name] = string(vals[i])
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// drop closes the session, within a second: one already lost closes at
// once.
func (a *Admin) drop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = a.conn.Close(ctx)
	a.conn = nil
}

// Close ends the session, and the readings under way or waiting for
// their turn (they fail at once, as later ones do): one the caller gave
// up on (the telemetry cut short) does not hold it for up to AdminWait.
func (a *Admin) Close() {
	a.end()
	a.turn <- struct{}{}
	defer func() { <-a.turn }()
	if a.conn != nil {
		a.drop()
	}
}
