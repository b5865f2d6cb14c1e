package mysql

import (
	"context"
	"crypto/tls"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
)

// defaultPort is the MySQL protocol's port.
const defaultPort = "3306"

// dialTimeout bounds connecting when the URL sets no timeout.
const dialTimeout = 10 * time.Second

// config reads a mysql:// URL: mysql://USER:PASSWORD@HOST[:PORT]/DB,
// its query parameters those of the driver's DSN (tls, timeout, ...).
// Placeholders are interpolated in the client (interpolateParams) unless
// the URL says otherwise, so a statement with arguments is one round
// trip, not a prepare, an execute and a close; DATETIME columns scan into
// time.Time (parseTime, in UTC); and an UPDATE counts the rows it matched,
// as PostgreSQL and SQLite do, not only those it changed
// (clientFoundRows). With tls-ca=FILE (see caParam) it speaks TLS only,
// verified against FILE's CA for the URL's host; seen receives what each
// handshake negotiated. The driver's own log lines are dropped: errors
// reach the caller.
func config(rawURL string, seen *atomic.Pointer[tls.ConnectionState]) (*mysql.Config, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "mysql" || u.Host == "" {
		return nil, fmt.Errorf("%w: %s: want mysql://USER:PASSWORD@HOST:PORT/DATABASE", target.ErrMalformedURL, target.MaskURL(rawURL))
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = defaultPort
	}
	q := u.Query()
	ca := q.Get(caParam)
	if q.Has(caParam) && (ca == "" || q.Has("tls")) {
		return nil, fmt.Errorf("%w: %s: %s wants a CA certificate file, and no tls parameter beside it", target.ErrMalformedURL, target.MaskURL(rawURL), caParam)
	}
	q.Del(caParam)
	for k, v := range map[string]string{"interpolateParams": "true", "parseTime": "true", "clientFoundRows": "true"} {
		if !q.Has(k) {
			q.Set(k, v)
		}
	}
	cfg, err := mysql.ParseDSN("tcp(" + net.JoinHostPort(host, port) + ")/" + strings.TrimPrefix(u.Path, "/") + "?" + q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", target.ErrMalformedURL, target.MaskURL(rawURL), target.MaskURL(err.Error()))
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	if !q.Has("timeout") {
		cfg.Timeout = dialTimeout
	}
	if !q.Has("connectionAttributes") {
		cfg.ConnectionAttributes = "program_name:" + programName // see TerminateSessions
	}
	cfg.Logger = &mysql.NopLogger{}
	if ca != "" {
		if cfg.TLS, err = verifiedTLS(ca, host, seen); err != nil {
			return nil, err
		}
		cfg.AllowFallbackToPlaintext = false
	}
	return cfg, nil
}

type mysqlTarget struct {
	cfg     *mysql.Config
	tls     atomic.Pointer[tls.ConnectionState] // the last verified handshake's (tls-ca)
	db      *sql.DB                             // Connect's sessions: none kept idle
	dialect target.Dialect
	// isolate sets a new session's isolation level (Isolate), "" for the
	// server's default.
	isolate string
}

// Open opens the MySQL-protocol target sp.URL names.
func (mysqlDriver) Open(ctx context.Context, sp target.Spec) (target.Target, error) {
	t := &mysqlTarget{}
	cfg, err := config(sp.URL, &t.tls)
	if err != nil {
		return nil, err
	}
	t.cfg = cfg
	if t.db, err = t.open(); err != nil {
		return nil, err
	}
	// Connect opens a new session each time and Close really closes it,
	// so connecting per transaction costs what it costs; pools are
	// separate.
	t.db.SetMaxIdleConns(0)
	var banner string
	if err := t.db.QueryRowContext(ctx, "SELECT version()").Scan(&banner); err != nil {
		t.db.Close()
		return nil, target.ConnectError(sp.URL, err)
	}
	t.dialect = target.ParseBanner(banner)
	if t.dialect.Isolation, err = defaultIsolation(ctx, t); err != nil {
		t.db.Close()
		return nil, err
	}
	return t, nil
}

// defaultIsolation reads a new session's level: @@transaction_isolation
// (MySQL, MariaDB from 11.1), else @@tx_isolation (MariaDB before).
func defaultIsolation(ctx context.Context, t *mysqlTarget) (target.Isolation, error) {
	c, err := t.Connect(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	l, err := target.ReadIsolation(ctx, c, "SELECT @@transaction_isolation")
	if err != nil {
		return target.ReadIsolation(ctx, c, "SELECT @@tx_isolation")
	}
	return l, nil
}

// Isolate sets each new session's level (SET SESSION TRANSACTION
// ISOLATION LEVEL, which every MariaDB and MySQL takes) as the driver
// connects it, for Connect's sessions and the pools' alike; there is no
// pooler in front of a MySQL-protocol server here.
func (t *mysqlTarget) Isolate(l target.Isolation, _ bool) error {
	t.isolate = "SET SESSION TRANSACTION ISOLATION LEVEL " + l.SQL()
	db, err := t.open()
	if err != nil {
		return err
	}
	db.SetMaxIdleConns(0)
	t.db.Close()
	t.db = db
	return nil
}

func (t *mysqlTarget) open() (*sql.DB, error) {
	conn, err := t.connector()
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// connector is the driver's connector for t's sessions; with tls-ca a
// server that cannot show the CA's certificate is refused by name.
func (t *mysqlTarget) connector() (driver.Connector, error) {
	conn, err := mysql.NewConnector(t.cfg)
	if err != nil {
		return nil, err
	}
	if t.cfg.TLS != nil {
		conn = refusingConnector{Connector: conn, cfg: t.cfg}
	}
	if t.isolate != "" {
		conn = isolatingConnector{Connector: conn, set: t.isolate}
	}
	return conn, nil
}

// isolatingConnector runs set on each session it connects (Isolate).
type isolatingConnector struct {
	driver.Connector
	set string
}

func (c isolatingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.(driver.ExecerContext).ExecContext(ctx, c.set, nil); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func (t *mysqlTarget) Dialect() target.Dialect { return t.dialect }

func (t *mysqlTarget) Close() error { return t.db.Close() }

func (t *mysqlTarget) Connect(ctx context.Context) (target.Conn, error) {
	c, err := t.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return newConn(c, &t.tls), nil
}

// mysqlConn is one server session (target.SQLConn) and the TLS its
// target's handshakes negotiated.
type mysqlConn struct {
	*target.SQLConn
	tls *atomic.Pointer[tls.ConnectionState] // its target's (TLS)
}

// sessions is what the MySQL protocol's sessions do their own way:
// target's $n placeholders spelled ?, a script's END spelled COMMIT, a
// lost connection told by the driver's errors.
var sessions = &target.SQLOptions{
	Begin: "BEGIN", Rewrite: placeholders, ScriptRewrite: spelled, Spell: commitSpelling,
	Lost: func(err error) bool { return connLost(err) || target.Classify(err) == errclass.ConnectionLost },
}

func newConn(c *sql.Conn, tls *atomic.Pointer[tls.ConnectionState]) *mysqlConn {
	return &mysqlConn{SQLConn: target.NewSQLConn(c, sessions), tls: tls}
}

var (
	_ target.ScriptConn = (*mysqlConn)(nil)
	_ target.Copier     = (*mysqlConn)(nil)
)
