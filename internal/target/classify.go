package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/result"
	"modernc.org/sqlite"
)

// Class is a stable name for a kind of error, used to count errors and to
// decide whether an op is retried; it is result's type (see result.Class).
type Class = result.Class

// The error classes, as result names them.
const (
	ClassNone                  = result.ClassNone
	ClassConnectRefused        = result.ClassConnectRefused
	ClassTooManyConnections    = result.ClassTooManyConnections
	ClassAuth                  = result.ClassAuth
	ClassTimeout               = result.ClassTimeout
	ClassSerialization         = result.ClassSerialization
	ClassDeadlock              = result.ClassDeadlock
	ClassBusy                  = result.ClassBusy
	ClassAdminShutdown         = result.ClassAdminShutdown
	ClassConnectionLost        = result.ClassConnectionLost
	ClassCanceled              = result.ClassCanceled
	ClassDiskFull              = result.ClassDiskFull
	ClassReadOnly              = result.ClassReadOnly
	ClassInsufficientResources = result.ClassInsufficientResources
	ClassUndefinedObject       = result.ClassUndefinedObject
	ClassPermission            = result.ClassPermission
	ClassOther                 = result.ClassOther
)

// Classes lists every error class in a stable order for reports.
var Classes = result.Classes

// Classify maps an error from any driver to its class.
func Classify(err error) Class {
	if err == nil {
		return ClassNone
	}
	if errors.Is(err, context.Canceled) {
		return ClassCanceled
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return classifySQLState(pgErr.Code)
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		switch sqErr.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return ClassBusy
		case 8: // SQLITE_READONLY
			return ClassReadOnly
		case 13: // SQLITE_FULL
			return ClassDiskFull
		}
		if msg := sqErr.Error(); strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") || strings.Contains(msg, "no such function") {
			return ClassUndefinedObject
		}
		return ClassOther
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return ClassConnectRefused
	}
	if errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return ClassTimeout
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return ClassTimeout
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || isConnClosed(err) {
		return ClassConnectionLost
	}
	return ClassOther
}

func isConnClosed(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return false
	}
	// pgx reports use of a connection that died earlier as "conn closed".
	return err.Error() == "conn closed" || errors.Unwrap(err) != nil && isConnClosed(errors.Unwrap(err))
}

func classifySQLState(code string) Class {
	switch code {
	case "40001":
		return ClassSerialization
	case "40P01":
		return ClassDeadlock
	case "53300", "53400":
		return ClassTooManyConnections
	case "28P01", "28000":
		return ClassAuth
	case "57P01", "57P02", "57P03":
		return ClassAdminShutdown
	case "57014", "25P03":
		return ClassTimeout
	case "53100":
		return ClassDiskFull
	case "25006":
		return ClassReadOnly
	case "42P01", "42703", "42883", "42704":
		return ClassUndefinedObject
	case "42501":
		return ClassPermission
	}
	if strings.HasPrefix(code, "53") {
		return ClassInsufficientResources
	}
	return ClassOther
}

// CommitOutcomeUnknown reports whether a failed COMMIT may still have
// committed: the request may have reached the server but no answer came
// back. An error the server reported about the transaction, or a request
// that was never sent, means it did not. A server that ends the session
// (FATAL, e.g. on shutdown) while the commit is in flight leaves it open:
// counting it as unknown only widens what the invariant check accepts.
func CommitOutcomeUnknown(err error) bool {
	if err == nil || errors.Is(err, errRolledBack) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "40003" || // CockroachDB: statement completion unknown
			pgErr.Severity == "FATAL" || pgErr.Severity == "PANIC"
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		return false
	}
	return !pgconn.SafeToRetry(err)
}

// Message is err in few words for a report: the server's own message and
// SQLSTATE when the server reported it (without the driver's prefixes
// naming the connection), otherwise err's text; passwords masked.
func Message(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("%s: %s (SQLSTATE %s)", pgErr.Severity, pgErr.Message, pgErr.Code)
	}
	return MaskURL(err.Error())
}

// IsUndefinedTable reports whether err says a table does not exist
// (SQLSTATE 42P01; SQLite's "no such table").
func IsUndefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "42P01"
	}
	var sqErr *sqlite.Error
	return errors.As(err, &sqErr) && strings.Contains(sqErr.Error(), "no such table")
}
