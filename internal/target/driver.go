package target

import (
	"context"
	"fmt"
	"sync"

	"github.com/txnbench/txnbench/internal/errclass"
)

// Driver is one database driver: it opens the databases of its spec kinds
// and explains its own errors. A driver package registers itself from its
// init (Register); importing internal/target/drivers registers them all.
// Each error method reports ok false for an error that is not the
// driver's.
type Driver interface {
	// Open opens the database sp names.
	Open(ctx context.Context, sp Spec) (Target, error)
	// Classify is err's class.
	Classify(err error) (c errclass.Class, ok bool)
	// CommitOutcomeUnknown is CommitOutcomeUnknown for the driver's errors.
	CommitOutcomeUnknown(err error) (unknown, ok bool)
	// Message is the server's own message and SQLSTATE (see Message).
	Message(err error) (msg string, ok bool)
	// ResultMessage is a server error as libpq's PQresultErrorMessage
	// words it (see ResultMessage).
	ResultMessage(err error, query string) (msg string, ok bool)
	// UndefinedTable reports whether err says a table does not exist.
	UndefinedTable(err error) (undefined, ok bool)
}

var drivers struct {
	sync.RWMutex
	byKind map[SpecKind]Driver
	all    []Driver
}

// Register makes d the driver of the given spec kinds.
func Register(d Driver, kinds ...SpecKind) {
	drivers.Lock()
	defer drivers.Unlock()
	if drivers.byKind == nil {
		drivers.byKind = map[SpecKind]Driver{}
	}
	for _, k := range kinds {
		drivers.byKind[k] = d
	}
	drivers.all = append(drivers.all, d)
}

func driverOf(k SpecKind) Driver {
	drivers.RLock()
	defer drivers.RUnlock()
	return drivers.byKind[k]
}

// explain returns the first registered driver's answer about err.
func explain[T any](f func(d Driver) (T, bool)) (T, bool) {
	drivers.RLock()
	all := drivers.all
	drivers.RUnlock()
	for _, d := range all {
		if v, ok := f(d); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// Open opens the database sp names; temp-postgres and temp-mariadb are
// started by the caller, which then opens its URL. It connects once to
// read the dialect and version.
func Open(ctx context.Context, sp Spec) (Target, error) {
	if sp.Throwaway() {
		return nil, fmt.Errorf("%s is started first (job.Open does), then opened by its URL", sp)
	}
	counts.opens.Add(1)
	d := driverOf(sp.Kind)
	if d == nil {
		return nil, fmt.Errorf("no driver for %s: import internal/target/drivers", MaskURL(sp.String()))
	}
	return d.Open(ctx, sp)
}

// OpenURL opens the database a spec string names (see ParseSpec): a
// URL txnbench made itself (a throwaway server's, a pooler's) or a test's.
func OpenURL(ctx context.Context, spec string) (Target, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return Open(ctx, sp)
}
