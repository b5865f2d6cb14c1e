package target

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/txnbench/txnbench/internal/errclass"
)

// Classify maps an error from any driver to its class.
func Classify(err error) errclass.Class {
	if err == nil {
		return errclass.None
	}
	if errors.Is(err, context.Canceled) {
		return errclass.Canceled
	}
	if errors.Is(err, ErrAuthRefused) {
		return errclass.Auth
	}
	if c, ok := explain(func(d Driver) (errclass.Class, bool) { return d.Classify(err) }); ok {
		return c
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return errclass.ConnectRefused
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errclass.Timeout
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return errclass.Timeout
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) {
		return errclass.ConnectionLost
	}
	return errclass.Other
}

// CommitOutcomeUnknown reports whether a failed COMMIT may still have
// committed: the request may have reached the server but no answer came
// back. An error the server reported about the transaction, or a request
// that was never sent (an error that says it is safe to retry), means it
// did not. A server that ends the session (FATAL, e.g. on shutdown) while
// the commit is in flight leaves it open: counting it as unknown only
// widens what the invariant check accepts.
func CommitOutcomeUnknown(err error) bool {
	if err == nil {
		return false
	}
	if unknown, ok := explain(func(d Driver) (bool, bool) { return d.CommitOutcomeUnknown(err) }); ok {
		return unknown
	}
	var r interface{ SafeToRetry() bool }
	return !errors.As(err, &r) || !r.SafeToRetry()
}

// Message is err in few words for a report: the server's own message and
// SQLSTATE when the server reported it (without the driver's prefixes
// naming the connection), otherwise err's text; passwords masked.
func Message(err error) string {
	if msg, ok := explain(func(d Driver) (string, bool) { return d.Message(err) }); ok {
		return msg
	}
	return MaskURL(err.Error())
}

// ResultMessage is a server error as libpq's PQresultErrorMessage words it
// at its default verbosity: "SEVERITY:  message", the LINE and caret lines
// locating the error in query, then DETAIL, HINT, QUERY and CONTEXT lines,
// each line ended by a newline. An error the server did not send is its
// text plus a newline.
func ResultMessage(err error, query string) string {
	if msg, ok := explain(func(d Driver) (string, bool) { return d.ResultMessage(err, query) }); ok {
		return msg
	}
	return err.Error() + "\n"
}

// IsServerError reports whether err is an error the database server sent
// (one ResultMessage words as libpq does).
func IsServerError(err error) bool {
	_, ok := explain(func(d Driver) (string, bool) { return d.ResultMessage(err, "") })
	return ok
}

// IsUndefinedTable reports whether err says a table does not exist
// (SQLSTATE 42P01; SQLite's "no such table").
func IsUndefinedTable(err error) bool {
	undefined, _ := explain(func(d Driver) (bool, bool) { return d.UndefinedTable(err) })
	return undefined
}
