package workload

import (
	"context"
	"errors"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// DataChecker is a workload whose invariants hold on the tables of a
// standard benchmark whoever loaded them (TPC-C's consistency conditions
// on go-tpc's, HammerDB's or BenchBase's tables): "txnbench check
// WORKLOAD --db URL" runs CheckData on them, reading only. The check names
// each invariant it could not evaluate (a table or column missing) and
// why; it returns an error wrapping ErrNoTables when the database has
// none of the benchmark's tables.
type DataChecker interface {
	CheckData(ctx context.Context, c target.Conn, caps target.Capabilities) (result.Check, error)
}

// ErrNoTables ends the error of a DataChecker on a database without the
// benchmark's tables; the command line treats it as a usage error (exit
// status 2).
var ErrNoTables = errors.New("give --db the database that holds them")
