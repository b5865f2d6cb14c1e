package interp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
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
	if e.Cause == nil {
		return []error{workload.ErrAbortClient}
	}
	return []error{workload.ErrAbortClient, e.Cause}
}

// SQLError is an SQL command that failed. Err is the driver's error, so
// target.Classify tells a retryable failure (serialization, deadlock).
// pgbench retries those (with --max-tries) and aborts the client on the
// others.
type SQLError struct {
	Client, Script, Command int
	Query                   int // which statement of a \; compound
	Err                     error
}

// Error is pgbench's line: for a retryable error the one --verbose-errors
// prints, for the others the one pgbench aborts the client with.
func (e *SQLError) Error() string {
	if target.Classify(e.Err).Retryable() {
		return fmt.Sprintf("client %d got an error in command %d (SQL) of script %d; %s", e.Client, e.Command, e.Script, resultMessage(e.Err))
	}
	return fmt.Sprintf("client %d script %d aborted in command %d query %d: %s", e.Client, e.Script, e.Command, e.Query, resultMessage(e.Err))
}

func (e *SQLError) Unwrap() error { return e.Err }

// resultMessage is a server error as libpq's PQresultErrorMessage puts it
// (first lines only): "ERROR:  message", then DETAIL and HINT lines.
func resultMessage(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	s := pe.Severity + ":  " + pe.Message
	if pe.Detail != "" {
		s += "\nDETAIL:  " + pe.Detail
	}
	if pe.Hint != "" {
		s += "\nHINT:  " + pe.Hint
	}
	return s
}
