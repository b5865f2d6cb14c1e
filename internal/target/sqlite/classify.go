package sqlite

import (
	"context"
	"errors"
	"strings"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	"modernc.org/sqlite"
)

// driver is the SQLite driver as target sees it.
type driver struct{}

func init() { target.Register(driver{}, target.SQLiteTemp, target.SQLiteFile) }

func (driver) Open(ctx context.Context, sp target.Spec) (target.Target, error) {
	return openSQLite(ctx, sp.Path)
}

// Classify maps SQLite's result codes to a class.
func (driver) Classify(err error) (errclass.Class, bool) {
	var sqErr *sqlite.Error
	if !errors.As(err, &sqErr) {
		return errclass.None, false
	}
	switch sqErr.Code() & 0xff {
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return errclass.Busy, true
	case 8: // SQLITE_READONLY
		return errclass.ReadOnly, true
	case 13: // SQLITE_FULL
		return errclass.DiskFull, true
	}
	if msg := sqErr.Error(); strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") || strings.Contains(msg, "no such function") {
		return errclass.UndefinedObject, true
	}
	return errclass.Other, true
}

// CommitOutcomeUnknown: an embedded engine's error is always an answer.
func (driver) CommitOutcomeUnknown(err error) (bool, bool) {
	var sqErr *sqlite.Error
	return false, errors.As(err, &sqErr)
}

// Message: SQLite's errors are their text.
func (driver) Message(error) (string, bool) { return "", false }

// ResultMessage: SQLite has no server errors to word as libpq does.
func (driver) ResultMessage(error, string) (string, bool) { return "", false }

// UndefinedTable is SQLite's "no such table".
func (driver) UndefinedTable(err error) (bool, bool) {
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		return strings.Contains(sqErr.Error(), "no such table"), true
	}
	return false, false
}
