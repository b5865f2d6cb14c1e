package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/tempdir"
)

type sqliteTarget struct {
	db      *sql.DB
	dsn     string
	path    string // the database file
	dialect target.Dialect
	tempDir string // removed on Close when the file was temporary
}

// sqliteBusyTimeoutMS is how long a writer waits for the write lock before
// SQLITE_BUSY, which the runner then retries.
const sqliteBusyTimeoutMS = 5000

// tempPrefix names every directory of a temporary SQLite file under
// os.TempDir().
const tempPrefix = "txnbench-sqlite-"

// newTempDir creates the directory of a temporary SQLite file, recording
// this process as its owner so that a later run removes it should txnbench
// die before it does; it first removes such directories whose owner is
// gone (tempdir.Sweep).
func newTempDir() (string, error) {
	tempdir.Sweep(nil, tempPrefix)
	dir, err := tempdir.New(tempPrefix)
	if err != nil {
		return "", err
	}
	if err := tempdir.Claim(dir); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

func openSQLite(ctx context.Context, path string) (target.Target, error) {
	t := &sqliteTarget{}
	if path == "" {
		dir, err := newTempDir()
		if err != nil {
			return nil, fmt.Errorf("creating a temporary SQLite file: %w", err)
		}
		t.tempDir = dir
		path = filepath.Join(dir, "txnbench.db")
	} else if dir := filepath.Dir(path); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("cannot create SQLite file %s: directory %s does not exist", path, dir)
		}
	}
	t.path = path
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// Escape the path: "?", "#" and "%" in a file name must not be read as
	// the start of the options.
	file := url.URL{Scheme: "file", OmitHost: true, Path: path}
	t.dsn = file.String() + "?" + q.Encode()
	db, err := sql.Open("sqlite", t.dsn)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("opening SQLite file %s: %w", path, err)
	}
	// Connect opens the file afresh each time and Close really closes it,
	// so connecting per transaction costs what it costs; pools are separate.
	db.SetMaxIdleConns(0)
	t.db = db
	// The first connection to a new file switches it to WAL, which needs
	// the file to itself: SQLite answers a second process (or pool)
	// opening it at that moment SQLITE_BUSY at once, without its busy
	// handler. Wait for it as busy_timeout would.
	var version string
	deadline := time.Now().Add(sqliteBusyTimeoutMS * time.Millisecond)
	for {
		err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version)
		if err == nil {
			break
		}
		if c, _ := (driver{}).Classify(err); c != errclass.Busy || time.Now().After(deadline) {
			t.Close()
			return nil, fmt.Errorf("opening SQLite file %s: %w", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.dialect = sqliteDialect(version)
	return t, nil
}

func (t *sqliteTarget) Dialect() target.Dialect { return t.dialect }

// Isolate takes SERIALIZABLE, the level every SQLite transaction runs at
// (one writer at a time, BEGIN IMMEDIATE), and refuses the others.
func (t *sqliteTarget) Isolate(l target.Isolation, _ bool) error {
	return target.CheckIsolation(target.SQLiteFile, l)
}

func (t *sqliteTarget) Close() error {
	var err error
	if t.db != nil {
		err = t.db.Close()
	}
	if t.tempDir != "" {
		if rerr := os.RemoveAll(t.tempDir); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

func (t *sqliteTarget) Connect(ctx context.Context) (target.Conn, error) {
	c, err := t.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return newConn(c), nil
}

// sessions is what SQLite's sessions do their own way: BEGIN IMMEDIATE,
// the single writer's equivalent of row locks. A session is never lost.
var sessions = &target.SQLOptions{Begin: "BEGIN IMMEDIATE"}

// sqliteConn is one session of the file (target.SQLConn).
type sqliteConn struct{ *target.SQLConn }

func newConn(c *sql.Conn) *sqliteConn { return &sqliteConn{target.NewSQLConn(c, sessions)} }

// File is the database file (target.FileTarget: LockSchema locks it).
func (t *sqliteTarget) File() string { return t.path }

var (
	_ target.FileTarget = (*sqliteTarget)(nil)
	_ target.ScriptConn = (*sqliteConn)(nil)
	_ target.Copier     = (*sqliteConn)(nil)
)
