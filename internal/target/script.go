package target

import (
	"context"
	"errors"
	"fmt"
)

// QueryMode is how the pgbench script engine sends SQL (pgbench -M).
type QueryMode uint8

// The query modes of pgbench -M.
const (
	// QuerySimple sends the SQL text with variables substituted, by the
	// simple query protocol (several statements may be joined with \;).
	QuerySimple QueryMode = iota
	// QueryExtended sends one statement with $n parameters (as text) by the
	// extended protocol, parsing it every time.
	QueryExtended
	// QueryPrepared prepares each statement once per session under a name,
	// then executes it with parameters.
	QueryPrepared
)

var queryModeNames = [...]string{QuerySimple: "simple", QueryExtended: "extended", QueryPrepared: "prepared"}

// String returns the mode's name as pgbench -M spells it.
func (m QueryMode) String() string {
	if int(m) < len(queryModeNames) {
		return queryModeNames[m]
	}
	return fmt.Sprintf("QueryMode(%d)", m)
}

// ParseQueryMode reads a pgbench -M argument.
func ParseQueryMode(s string) (QueryMode, error) {
	for m, n := range queryModeNames {
		if s == n {
			return QueryMode(m), nil
		}
	}
	return 0, fmt.Errorf("invalid query mode (-M): %q", s)
}

// RowSink receives the results of a statement as text. A statement has one
// result, or one per statement of a \; compound in simple mode (numbered
// from 0). Row is called for each row with the column names and values (nil
// for SQL NULL); both slices are only valid during the call. EndResult is
// called after each result's rows with their number (0 for a command that
// returns no rows). An error from the sink is returned by Statement after
// the results have been read.
type RowSink interface {
	Row(result int, cols []string, vals [][]byte) error
	EndResult(result int, rows int) error
}

// ScriptConn is raw statement access for the pgbench script engine. Conns
// of every target (connected or pooled) satisfy it: type-assert a Conn.
// Its statements go around Conn's transaction handling: scripts send their
// own BEGIN and END, and a Begin pending on the Conn is not sent.
type ScriptConn interface {
	Conn
	// Statement runs sql. In extended and prepared mode params are the
	// values of $1..$n as text (a nil element is SQL NULL). In prepared
	// mode sql is prepared under name the first time this session sees
	// the name (or sees it with another text), and executed by name
	// afterwards. sql is not kept after the call in simple and extended
	// mode. rows may be nil.
	// Inside a pipeline the statement is only queued: its results, and
	// its error, come with EndPipeline.
	Statement(ctx context.Context, mode QueryMode, name, sql string, params [][]byte, rows RowSink) error
	// Prepare prepares sql under name unless this session already has.
	// pgbench prepares the statements of a pipeline before starting it.
	Prepare(ctx context.Context, name, sql string) error
	// InTransaction reports whether the session is inside a transaction
	// block, a failed one included.
	InTransaction() bool
	// StartPipeline enters pipeline mode (extended and prepared mode only).
	StartPipeline(ctx context.Context) error
	// SyncPipeline sends a synchronization point; the results are still
	// read by EndPipeline.
	SyncPipeline(ctx context.Context) error
	// EndPipeline sends a last synchronization point, reads every result,
	// leaves pipeline mode and returns the first error. After an error
	// the server skips the statements up to the next synchronization
	// point.
	EndPipeline(ctx context.Context) error
	// InPipeline reports whether a pipeline is open.
	InPipeline() bool
}

// The errors of a ScriptConn used out of turn, alike in every driver.
var (
	ErrPipelineOpen    = errors.New("a pipeline is open")
	ErrNoPipeline      = errors.New("not in pipeline mode")
	ErrSimplePipeline  = errors.New("cannot use pipeline mode with the simple query protocol")
	ErrSimpleParams    = errors.New("the simple query protocol takes no parameters")
	ErrUnnamedPrepared = errors.New("a prepared statement needs a name")
)

// PrepareError is a statement the server refused to prepare and that was
// executed all the same, as pgbench does: Prepare is the refusal, Err the
// execution's error (which it wraps).
type PrepareError struct{ Prepare, Err error }

func (e *PrepareError) Error() string { return e.Err.Error() }
func (e *PrepareError) Unwrap() error { return e.Err }
