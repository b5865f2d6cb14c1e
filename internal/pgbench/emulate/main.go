package emulate

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Env is what `txnbench pgbench` needs from its caller.
type Env struct {
	Stdout, Stderr io.Writer
	// Args is the command line results record.
	Args []string
	// Version is txnbench's version, printed beside pgbench's.
	Version string
	// Redact masks the passwords in a line before it is printed.
	Redact func(string) string
	// CheckOutFile, if set, refuses an output file (flag names its
	// option) that could not be written after the run.
	CheckOutFile func(flag, path string) error
	// Threads, if set, is told the run's threads (-j, at most -c) once
	// the options are valid, before anything connects: the txnbench
	// binary runs that many Ps, as pgbench runs that many threads.
	Threads func(n int)
}

// Main runs `txnbench pgbench` with args (those after "pgbench"), prints
// what pgbench prints to env's writers and returns the exit status.
func Main(ctx context.Context, args []string, env Env) int {
	e := &emulator{env}
	err := e.pgbench(ctx, args)
	if err == nil {
		return 0
	}
	var ee exitError
	if !errors.As(err, &ee) {
		errors.As(e.pgbenchFail(err), &ee)
	}
	if ee.msg != "" {
		fmt.Fprintln(e.Stderr, "txnbench: "+e.Redact(ee.msg))
	}
	return ee.code
}

// emulator is one `txnbench pgbench` command.
type emulator struct{ Env }

// status prints a progress or status line.
func (e *emulator) status(msg string) { fmt.Fprintln(e.Stderr, e.Redact(msg)) }

// exitError ends the command with code, after printing msg (if any) as
// txnbench's error line.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }
