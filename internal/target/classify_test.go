package target_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	_ "github.com/txnbench/txnbench/internal/target/drivers"
	"github.com/txnbench/txnbench/internal/testutil"
)

func pgErr(code string) error {
	return &pgconn.PgError{Severity: "ERROR", Code: code, Message: "message for " + code}
}

// closedPort returns a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// realRefused dials an address nothing listens on.
func realRefused(t *testing.T) error {
	t.Helper()
	c, err := net.DialTimeout("tcp", closedPort(t), 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatal("dialing a just-closed port succeeded")
	}
	return err
}

// realNetTimeout reads from a TCP connection whose deadline has passed.
func realNetTimeout(t *testing.T) error {
	t.Helper()
	return readLocal(t, "read past the deadline", func(c net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
	})
}

// realClosed reads from a TCP connection this side already closed.
func realClosed(t *testing.T) error {
	t.Helper()
	return readLocal(t, "read on a closed connection", func(c net.Conn) { c.Close() })
}

// readLocal reads from a TCP connection to a local listener after prepare
// made the read fail, and returns its error.
func readLocal(t *testing.T, what string, prepare func(net.Conn)) error {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prepare(c)
	if _, err = c.Read(make([]byte, 1)); err == nil {
		t.Fatal(what + " succeeded")
	}
	return err
}

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	tests := []struct {
		name string
		err  error
		want errclass.Class
	}{
		{"nil", nil, errclass.None},
		{"serialization 40001", pgErr("40001"), errclass.Serialization},
		{"deadlock 40P01", pgErr("40P01"), errclass.Deadlock},
		{"too many connections 53300", pgErr("53300"), errclass.TooManyConnections},
		{"out of memory for connections 53400", pgErr("53400"), errclass.TooManyConnections},
		{"auth 28P01", pgErr("28P01"), errclass.Auth},
		{"auth 28000", pgErr("28000"), errclass.Auth},
		{"admin shutdown 57P01", pgErr("57P01"), errclass.AdminShutdown},
		{"crash shutdown 57P02", pgErr("57P02"), errclass.AdminShutdown},
		{"cannot connect now 57P03", pgErr("57P03"), errclass.AdminShutdown},
		{"statement timeout 57014", pgErr("57014"), errclass.Timeout},
		{"idle in transaction timeout 25P03", pgErr("25P03"), errclass.Timeout},
		{"unique violation 23505", pgErr("23505"), errclass.Other},
		{"syntax error 42601", pgErr("42601"), errclass.Other},
		{"disk full 53100", pgErr("53100"), errclass.DiskFull},
		{"out of memory 53200", pgErr("53200"), errclass.InsufficientResources},
		{"insufficient resources 53000", pgErr("53000"), errclass.InsufficientResources},
		{"read-only transaction 25006", pgErr("25006"), errclass.ReadOnly},
		{"undefined table 42P01", pgErr("42P01"), errclass.UndefinedObject},
		{"undefined column 42703", pgErr("42703"), errclass.UndefinedObject},
		{"undefined function 42883", pgErr("42883"), errclass.UndefinedObject},
		{"undefined object 42704", pgErr("42704"), errclass.UndefinedObject},
		{"insufficient privilege 42501", pgErr("42501"), errclass.Permission},
		{"wrapped disk full", fmt.Errorf("add: %w", pgErr("53100")), errclass.DiskFull},
		{"wrapped serialization", fmt.Errorf("process: %w", pgErr("40001")), errclass.Serialization},
		{"doubly wrapped deadlock", fmt.Errorf("archive: %w", fmt.Errorf("delete: %w", pgErr("40P01"))), errclass.Deadlock},
		{"joined with other errors", errors.Join(errors.New("rollback failed"), pgErr("40001")), errclass.Serialization},
		{"context canceled", context.Canceled, errclass.Canceled},
		{"wrapped context canceled", fmt.Errorf("add: %w", context.Canceled), errclass.Canceled},
		{"canceled beats a server error", errors.Join(pgErr("57014"), context.Canceled), errclass.Canceled},
		{"deadline exceeded", context.DeadlineExceeded, errclass.Timeout},
		{"wrapped deadline exceeded", fmt.Errorf("commit: %w", context.DeadlineExceeded), errclass.Timeout},
		{"connection refused in net.OpError", refused, errclass.ConnectRefused},
		{"wrapped connection refused", fmt.Errorf("connect: %w", refused), errclass.ConnectRefused},
		{"real connection refused", realRefused(t), errclass.ConnectRefused},
		{"real network read timeout", realNetTimeout(t), errclass.Timeout},
		{"io.EOF", io.EOF, errclass.ConnectionLost},
		{"io.ErrUnexpectedEOF", io.ErrUnexpectedEOF, errclass.ConnectionLost},
		{"wrapped unexpected EOF", fmt.Errorf("receive message failed: %w", io.ErrUnexpectedEOF), errclass.ConnectionLost},
		{"ECONNRESET", syscall.ECONNRESET, errclass.ConnectionLost},
		{"ECONNRESET in net.OpError", &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}, errclass.ConnectionLost},
		{"EPIPE", &net.OpError{Op: "write", Net: "tcp", Err: &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}}, errclass.ConnectionLost},
		{"net.ErrClosed", net.ErrClosed, errclass.ConnectionLost},
		{"real read on closed connection", realClosed(t), errclass.ConnectionLost},
		{"pgx conn closed", errors.New("conn closed"), errclass.ConnectionLost},
		{"wrapped pgx conn closed", fmt.Errorf("add: %w", errors.New("conn closed")), errclass.ConnectionLost},
		{"plain error", errors.New("boom"), errclass.Other},
		{"message mentioning conn closed", errors.New("conn closed by peer: boom"), errclass.Other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := target.Classify(tc.err); got != tc.want {
				t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestRetryable(t *testing.T) {
	retryable := map[errclass.Class]bool{errclass.Serialization: true, errclass.Deadlock: true, errclass.Busy: true}
	all := append([]errclass.Class{errclass.None, errclass.Canceled}, errclass.All...)
	for _, c := range all {
		if got := c.Retryable(); got != retryable[c] {
			t.Errorf("%q.Retryable() = %v, want %v", c, got, retryable[c])
		}
	}
	// Every retryable class is reported.
	for c := range retryable {
		found := false
		for _, k := range errclass.All {
			found = found || k == c
		}
		if !found {
			t.Errorf("Classes lacks the retryable class %q", c)
		}
	}
}

func TestClassesList(t *testing.T) {
	want := []errclass.Class{
		errclass.ConnectRefused, errclass.TooManyConnections, errclass.Auth, errclass.Timeout,
		errclass.Serialization, errclass.Deadlock, errclass.Busy, errclass.AdminShutdown,
		errclass.ConnectionLost, errclass.DiskFull, errclass.ReadOnly, errclass.InsufficientResources,
		errclass.UndefinedObject, errclass.Permission, errclass.Other,
	}
	seen := map[errclass.Class]bool{}
	for _, c := range errclass.All {
		if c == errclass.None || c == errclass.Canceled {
			t.Errorf("Classes lists %q, which is not an error", c)
		}
		if seen[c] {
			t.Errorf("Classes lists %q twice", c)
		}
		seen[c] = true
	}
	for _, c := range want {
		if !seen[c] {
			t.Errorf("Classes lacks %q", c)
		}
	}
	if len(errclass.All) != len(want) {
		t.Errorf("Classes has %d entries, want %d", len(errclass.All), len(want))
	}
}

// sqliteBusy returns a real SQLITE_BUSY: a second writer that does not wait
// for the write lock the first one holds.
func sqliteBusy(t *testing.T) error {
	t.Helper()
	ctx := context.Background()
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
	c1, c2 := connectTo(t, tg), connectTo(t, tg)
	if err := c1.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c1.Rollback(ctx) })
	if _, err := c2.Exec(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := c2.Begin(ctx)
	if err == nil {
		t.Fatal("a second BEGIN IMMEDIATE succeeded while the first held the write lock")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("BEGIN with busy_timeout 0 waited %v", d)
	}
	return err
}

func TestClassifySQLite(t *testing.T) {
	ctx := context.Background()
	busy := sqliteBusy(t)
	if got := target.Classify(busy); got != errclass.Busy || !got.Retryable() {
		t.Errorf("Classify(%v) = %q (retryable %v), want busy, retryable", busy, got, got.Retryable())
	}
	if got := target.Classify(fmt.Errorf("add: %w", busy)); got != errclass.Busy {
		t.Errorf("Classify(wrapped %v) = %q, want busy", busy, got)
	}

	c := connectTo(t, testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "x.db")))
	_, syntax := c.Exec(ctx, "SELEC 1")
	if syntax == nil {
		t.Fatal("a syntax error was accepted")
	}
	if got := target.Classify(syntax); got != errclass.Other {
		t.Errorf("Classify(%v) = %q, want other", syntax, got)
	}
	_, missing := c.Exec(ctx, "SELECT * FROM nosuch")
	if got := target.Classify(missing); missing == nil || got != errclass.UndefinedObject {
		t.Errorf("Classify(%v) = %q, want undefined_object", missing, got)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE u (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO u VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, unique := c.Exec(ctx, "INSERT INTO u VALUES (1)")
	if unique == nil {
		t.Fatal("a duplicate primary key was accepted")
	}
	if got := target.Classify(unique); got != errclass.Other {
		t.Errorf("Classify(%v) = %q, want other", unique, got)
	}
}

func TestCommitOutcomeUnknown(t *testing.T) {
	busy := sqliteBusy(t)
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"serialization failure", pgErr("40001"), false},
		{"admin shutdown reported by the server", pgErr("57P01"), false},
		{"unique violation", pgErr("23505"), false},
		{"CockroachDB statement completion unknown", pgErr("40003"), true},
		{"wrapped 40003", fmt.Errorf("commit: %w", pgErr("40003")), true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"wrapped unexpected EOF", fmt.Errorf("commit: %w", io.ErrUnexpectedEOF), true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}, true},
		{"real SQLite busy", busy, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := target.CommitOutcomeUnknown(tc.err); got != tc.want {
				t.Errorf("CommitOutcomeUnknown(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestConnectErrorRefused opens a postgres:// URL on a port nothing listens
// on: the error says what to do, keeps the class and hides the password.
func TestConnectErrorRefused(t *testing.T) {
	spec := "postgres://bench:s3cretpw@" + closedPort(t) + "/app?sslmode=disable&connect_timeout=5"
	_, err := target.OpenURL(context.Background(), spec)
	if err == nil {
		t.Fatal("Open on a closed port succeeded")
	}
	if got := target.Classify(err); got != errclass.ConnectRefused {
		t.Errorf("Classify(%v) = %q, want connect_refused", err, got)
	}
	msg := err.Error()
	if strings.Contains(msg, "s3cretpw") {
		t.Errorf("error leaks the password: %s", msg)
	}
	if !strings.Contains(msg, "connection refused") || !strings.Contains(msg, "bench:xxxxx@") {
		t.Errorf("error = %q, want it to name the masked URL and say connection refused", msg)
	}
}

func TestConnectErrorMessages(t *testing.T) {
	url := "postgres://u:s3cretpw@h/db"
	tests := []struct {
		err  error
		want string
	}{
		{pgErr("28P01"), "check the user name and password"},
		{fmt.Errorf("dial: %w", &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}), "is the server running"},
		{context.DeadlineExceeded, "timed out"},
		{pgErr("53300"), "lower --clients or raise max_connections"},
		{errors.New("boom"), "cannot connect to"},
	}
	for _, tc := range tests {
		err := target.ConnectError(url, tc.err)
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, "s3cretpw") || !strings.Contains(msg, "u:xxxxx@h/db") {
			t.Errorf("ConnectError(%v) = %q, want it to contain %q and the masked URL only", tc.err, msg, tc.want)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("ConnectError(%v) does not wrap the cause", tc.err)
		}
	}
}

func TestMessage(t *testing.T) {
	server := fmt.Errorf("failed to connect to `user=u database=d`: 127.0.0.1:5432 (127.0.0.1): server error: %w",
		&pgconn.PgError{Severity: "FATAL", Code: "53300", Message: "sorry, too many clients already"})
	if got, want := target.Message(server), "FATAL: sorry, too many clients already (SQLSTATE 53300)"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if got := target.Message(errors.New("dial postgres://u:s3cret@h/db: refused")); strings.Contains(got, "s3cret") || !strings.Contains(got, "refused") {
		t.Errorf("Message of a plain error = %q", got)
	}
}
