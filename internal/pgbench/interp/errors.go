package interp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Error is a runtime error of a script that aborts the client, worded as
// pgbench logs it. It wraps workload.ErrAbortClient and its cause.
type Error struct {
	// Msg is pgbench's line, e.g. "client 0 aborted in command 1 (set) of
	// script 0; evaluation of meta-command failed".
	Msg string
	// Cause is what pgbench logs on the line before, e.g. `undefined
	// variable "x"`, or nil.
	Cause error
	// Completed marks an error found after the script's transaction
	// completed: it counts as done, and then the client aborts.
	Completed bool
}

// Lines are what pgbench logs for the error, each after "pgbench: error: "
// (a line may hold a newline of the message it quotes).
func (e *Error) Lines() []string {
	var lines []string
	if e.Cause != nil {
		if !isSilent(e.Cause) {
			lines = append(lines, e.Cause.Error())
		}
	}
	return append(lines, e.Msg)
}

// isSilent: pgbench logs nothing of its own for an empty string variable.
func isSilent(err error) bool {
	var ee *expr.EvalError
	return errors.As(err, &ee) && ee.Msg == ""
}

// Error is Lines joined by newlines.
func (e *Error) Error() string { return strings.Join(e.Lines(), "\n") }

// Unwrap gives workload.ErrAbortClient and the cause.
func (e *Error) Unwrap() []error {
	abort := workload.ErrAbortClient
	if e.Completed {
		abort = workload.ErrAbortAfter
	}
	if e.Cause == nil {
		return []error{abort}
	}
	return []error{abort, e.Cause}
}

// SQLError is an SQL command that failed. Err is the driver's error, so
// target.Classify tells a retryable failure (serialization, deadlock).
// pgbench retries those (with --max-tries) and aborts the client on the
// others.
type SQLError struct {
	Client, Script, Command int
	Query                   int // which statement of a \; compound
	Err                     error
	SQL                     string // the text sent, which the server's positions point into
}

// Lines are pgbench's messages, each logged after "pgbench: error: ": for
// a retryable error the one --verbose-errors prints, for the others the
// one pgbench aborts the client with, after the error of a PREPARE that
// failed. A message holds the server's further lines (LINE, DETAIL, ...).
func (e *SQLError) Lines() []string {
	if target.Classify(e.Err).Retryable() {
		return []string{fmt.Sprintf("client %d got an error in command %d (SQL) of script %d; %s", e.Client, e.Command, e.Script, resultMessage(e.Err, e.SQL))}
	}
	var lines []string
	var pe *target.PrepareError
	if errors.As(e.Err, &pe) {
		lines = append(lines, resultMessage(pe.Prepare, e.SQL))
	}
	return append(lines, fmt.Sprintf("client %d script %d aborted in command %d query %d: %s", e.Client, e.Script, e.Command, e.Query, resultMessage(e.Err, e.SQL)))
}

// Error is Lines joined by newlines.
func (e *SQLError) Error() string { return strings.Join(e.Lines(), "\n") }

func (e *SQLError) Unwrap() error { return e.Err }

// resultMessage is a server error as libpq's PQresultErrorMessage puts it,
// without its last newline.
func resultMessage(err error, sql string) string {
	return strings.TrimSuffix(target.ResultMessage(err, sql), "\n")
}
