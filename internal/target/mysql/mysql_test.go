package mysql

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
)

// startMariaDB starts a throwaway MariaDB for the test, skipping when
// MariaDB is not installed unless CI is set, where that is a failure.
func startMariaDB(t *testing.T) *localdb.MariaDB {
	t.Helper()
	if !localdb.HasMariaDB() {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set and mariadbd is not installed (apt-get install mariadb-server)")
		}
		t.Skip("mariadbd is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := localdb.StartMariaDB(ctx, localdb.MariaDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop() })
	return m
}

// TestMariaDBServer runs the driver against a real MariaDB: the dialect
// it reads, statements with target's $n placeholders, and the class of
// each error the server really sends.
func TestMariaDBServer(t *testing.T) {
	m := startMariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tg, err := target.OpenURL(ctx, m.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	d := tg.Dialect()
	if d.Name != "MariaDB" || d.Version != m.Version() || !d.Caps.SkipLocked || !d.Caps.GeneratedColumns || d.Caps.JSONB || d.Caps.ListenNotify || d.Caps.StatViews {
		t.Errorf("dialect = %+v, want MariaDB %s with SKIP LOCKED and generated columns, no binary JSON, LISTEN/NOTIFY or PostgreSQL statistics views", d, m.Version())
	}
	conn := func(t *testing.T) target.Conn {
		t.Helper()
		c, err := tg.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	exec := func(t *testing.T, c target.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	root := conn(t)
	exec(t, root, "CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL) ENGINE=InnoDB")
	exec(t, root, "INSERT INTO acct VALUES ($1, $2), ($3, $2)", 1, 100, 2)

	t.Run("placeholders", func(t *testing.T) {
		var id, bal int
		if err := target.QueryRow(ctx, root, "SELECT id, balance FROM acct WHERE balance = $2 AND id = $1", []any{2, 100}, &id, &bal); err != nil || id != 2 || bal != 100 {
			t.Errorf("got %d %d, %v", id, bal, err)
		}
	})

	t.Run("matched rows", func(t *testing.T) {
		// An update that changes nothing still counts its row, as on
		// PostgreSQL: workloads check counts against what they meant to touch.
		n, err := root.Exec(ctx, "UPDATE acct SET balance = balance WHERE id IN ($1, $2)", 1, 2)
		if err != nil || n != 2 {
			t.Errorf("unchanged update: %d rows, %v; want 2", n, err)
		}
	})

	t.Run("copy", func(t *testing.T) {
		// Quotes and backslashes arrive as they were; the session's
		// sql_mode is what it was before the load.
		exec(t, root, "CREATE TABLE copied (id INT PRIMARY KEY, s TEXT NOT NULL)")
		texts := []string{`it's`, `C:\dir\n`, `\'`, "tab\there"}
		i := 0
		n, err := root.(target.Copier).CopyFrom(ctx, target.Copy{Table: "copied", Rows: func(r *target.CopyRow) (bool, error) {
			if i == len(texts) {
				return false, nil
			}
			r.Int(int64(i))
			r.Text(texts[i])
			i++
			return true, nil
		}})
		if err != nil || n != int64(len(texts)) {
			t.Fatalf("copied %d rows, %v; want %d", n, err, len(texts))
		}
		for i, want := range texts {
			var got string
			if err := target.QueryRow(ctx, root, "SELECT s FROM copied WHERE id = $1", []any{i}, &got); err != nil || got != want {
				t.Errorf("row %d: %q, %v; want %q", i, got, err, want)
			}
		}
		var mode string
		if err := target.QueryRow(ctx, root, "SELECT @@SESSION.sql_mode", nil, &mode); err != nil || strings.Contains(mode, "NO_BACKSLASH_ESCAPES") {
			t.Errorf("sql_mode after the load: %q, %v", mode, err)
		}
	})

	t.Run("deadlock", func(t *testing.T) {
		a, b := conn(t), conn(t)
		for _, c := range []target.Conn{a, b} {
			if err := c.Begin(ctx); err != nil {
				t.Fatal(err)
			}
		}
		exec(t, a, "UPDATE acct SET balance = balance + 1 WHERE id = 1")
		exec(t, b, "UPDATE acct SET balance = balance + 1 WHERE id = 2")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, st := range []struct {
			c  target.Conn
			id int
		}{{a, 2}, {b, 1}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = st.c.Exec(ctx, "UPDATE acct SET balance = balance + 1 WHERE id = $1", st.id)
				st.c.Rollback(ctx)
			}()
		}
		wg.Wait()
		err := errors.Join(errs...)
		if c := target.Classify(err); c != errclass.Deadlock || !c.Retryable() {
			t.Errorf("class %q (retryable %v) for %v, want deadlock", c, c.Retryable(), err)
		}
		if target.CommitOutcomeUnknown(err) {
			t.Errorf("a deadlock the server reported leaves the outcome unknown")
		}
	})

	t.Run("lock wait timeout", func(t *testing.T) {
		a, b := conn(t), conn(t)
		if err := a.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		defer a.Rollback(ctx)
		exec(t, a, "UPDATE acct SET balance = balance + 1 WHERE id = 1")
		exec(t, b, "SET SESSION innodb_lock_wait_timeout = 1")
		_, err := b.Exec(ctx, "UPDATE acct SET balance = balance + 1 WHERE id = 1")
		if c := target.Classify(err); c != errclass.Busy || !c.Retryable() {
			t.Errorf("class %q for %v, want busy (retryable)", c, err)
		}
	})

	t.Run("undefined table", func(t *testing.T) {
		_, err := root.Query(ctx, "SELECT * FROM nope")
		if c := target.Classify(err); c != errclass.UndefinedObject || !target.IsUndefinedTable(err) {
			t.Errorf("class %q, undefined table %v for %v", c, target.IsUndefinedTable(err), err)
		}
		if msg := target.Message(err); !strings.Contains(msg, "error 1146") {
			t.Errorf("Message = %q", msg)
		}
	})

	t.Run("access denied", func(t *testing.T) {
		bad := strings.Replace(m.URL(), m.Password(), "wrongpassword", 1)
		_, err := target.OpenURL(ctx, bad)
		if c := target.Classify(err); c != errclass.Auth {
			t.Errorf("class %q for %v, want auth", c, err)
		}
		if err != nil && strings.Contains(err.Error(), "wrongpassword") {
			t.Errorf("the error shows the password: %v", err)
		}
	})

	t.Run("refused", func(t *testing.T) {
		l, err := localdb.Listen()
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(interface{ String() string }).String()
		l.Close()
		_, err = target.OpenURL(ctx, fmt.Sprintf("mysql://root:x@%s/txnbench", port))
		if c := target.Classify(err); c != errclass.ConnectRefused {
			t.Errorf("class %q for %v, want connect_refused", c, err)
		}
	})

	// A user without the privileges that bypass read_only and
	// max_connections.
	exec(t, root, "CREATE USER plain@'127.0.0.1' IDENTIFIED BY 'plainpw'")
	exec(t, root, "GRANT SELECT, INSERT, UPDATE ON txnbench.* TO plain@'127.0.0.1'")
	plainURL := fmt.Sprintf("mysql://plain:plainpw@127.0.0.1:%d/txnbench?tls-ca=%s", m.Port(), url.QueryEscape(m.CAFile()))

	t.Run("read only", func(t *testing.T) {
		p, err := target.OpenURL(ctx, plainURL)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		c, err := p.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		exec(t, root, "SET GLOBAL read_only = 1")
		defer exec(t, root, "SET GLOBAL read_only = 0")
		_, err = c.Exec(ctx, "UPDATE acct SET balance = balance WHERE id = 1")
		if cl := target.Classify(err); cl != errclass.ReadOnly {
			t.Errorf("class %q for %v, want read_only", cl, err)
		}
	})

	t.Run("too many connections", func(t *testing.T) {
		// MariaDB's least max_connections is 10, and it lets one more in,
		// kept for administrators: root's 11 sessions fill it for others.
		exec(t, root, "SET GLOBAL max_connections = 10")
		defer exec(t, root, "SET GLOBAL max_connections = 151")
		for i := 0; i < 10; i++ {
			conn(t)
		}
		_, err := target.OpenURL(ctx, plainURL)
		if c := target.Classify(err); c != errclass.TooManyConnections {
			t.Errorf("class %q for %v, want too_many_connections", c, err)
		}
	})

	t.Run("pooled session killed", func(t *testing.T) {
		p, err := tg.OpenPool(ctx, target.PoolConfig{Max: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		c, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := target.QueryRow(ctx, c, "SELECT CONNECTION_ID()", nil, &id); err != nil {
			t.Fatal(err)
		}
		exec(t, root, fmt.Sprintf("KILL %d", id))
		if _, err := c.Exec(ctx, "SELECT 1"); err == nil || !c.Broken() {
			t.Fatalf("a killed pooled session: %v, broken %v", err, c.Broken())
		}
		target.Discard(c)
		c, err = p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var again int64
		if err := target.QueryRow(ctx, c, "SELECT CONNECTION_ID()", nil, &again); err != nil || again == id {
			t.Errorf("after the killed session: %d, %v", again, err)
		}
		c.Close(ctx)
		if st := p.Stats(); st.NewConns != 2 || st.Destroyed != 1 {
			t.Errorf("pool stats %+v, want 2 sessions opened and 1 destroyed", st)
		}
	})

	t.Run("killed session", func(t *testing.T) {
		c := conn(t)
		var id int64
		if err := target.QueryRow(ctx, c, "SELECT CONNECTION_ID()", nil, &id); err != nil {
			t.Fatal(err)
		}
		exec(t, root, fmt.Sprintf("KILL %d", id))
		_, err := c.Exec(ctx, "SELECT 1")
		if cl := target.Classify(err); cl != errclass.ConnectionLost && cl != errclass.AdminShutdown {
			t.Errorf("class %q for %v, want connection_lost or admin_shutdown", cl, err)
		}
		if !c.Broken() {
			t.Errorf("a killed session is not Broken: %v", err)
		}
	})
}

// TestClassifyNumber covers the error numbers a test server cannot easily
// be made to send (a full disk, out of memory, a statement timeout).
func TestClassifyNumber(t *testing.T) {
	for n, want := range map[uint16]errclass.Class{
		1021: errclass.DiskFull, 1114: errclass.DiskFull, 1040: errclass.TooManyConnections,
		1203: errclass.TooManyConnections, 1045: errclass.Auth, 1290: errclass.ReadOnly,
		1213: errclass.Deadlock, 1205: errclass.Busy, 1041: errclass.InsufficientResources,
		1969: errclass.Timeout, 1053: errclass.AdminShutdown, 1142: errclass.Permission,
		1062: errclass.Other,
	} {
		if got := classifyNumber(n); got != want {
			t.Errorf("error %d: class %q, want %q", n, got, want)
		}
	}
}
