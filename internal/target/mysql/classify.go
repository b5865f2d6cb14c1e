package mysql

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
)

// mysqlDriver is the MySQL-protocol driver as target sees it.
type mysqlDriver struct{}

func init() { target.Register(mysqlDriver{}, target.MySQLURL) }

// The server error numbers txnbench classifies (MariaDB and MySQL share
// them unless noted).
const (
	errDiskFull           = 1021 // ER_DISK_FULL
	errAccessDenied       = 1045 // ER_ACCESS_DENIED_ERROR
	errDBAccessDenied     = 1044 // ER_DBACCESS_DENIED_ERROR
	errTooManyConnections = 1040 // ER_CON_COUNT_ERROR
	errUserConnections    = 1203 // ER_TOO_MANY_USER_CONNECTIONS
	errOutOfMemory        = 1037 // ER_OUTOFMEMORY
	errOutOfSortMemory    = 1038 // ER_OUT_OF_SORTMEMORY
	errOutOfResources     = 1041 // ER_OUT_OF_RESOURCES
	errShutdown           = 1053 // ER_SERVER_SHUTDOWN
	errBadDB              = 1049 // ER_BAD_DB_ERROR
	errBadField           = 1054 // ER_BAD_FIELD_ERROR
	errTableFull          = 1114 // ER_RECORD_FILE_FULL: the table (tablespace) is full
	errTableAccess        = 1142 // ER_TABLEACCESS_DENIED_ERROR
	errColumnAccess       = 1143 // ER_COLUMNACCESS_DENIED_ERROR
	errNoSuchTable        = 1146 // ER_NO_SUCH_TABLE
	errLockWaitTimeout    = 1205 // ER_LOCK_WAIT_TIMEOUT
	errDeadlock           = 1213 // ER_LOCK_DEADLOCK
	errSpecificAccess     = 1227 // ER_SPECIFIC_ACCESS_DENIED_ERROR
	errReadOnly           = 1290 // ER_OPTION_PREVENTS_STATEMENT (--read-only)
	errNoSuchFunction     = 1305 // ER_SP_DOES_NOT_EXIST
	errQueryInterrupted   = 1317 // ER_QUERY_INTERRUPTED (KILL QUERY)
	errAccessDeniedNoPass = 1698 // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
	errReadOnlyTx         = 1792 // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
	errConnectionKilled   = 1927 // ER_CONNECTION_KILLED (MariaDB)
	errStatementTimeout   = 1969 // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
	errExecutionTimeout   = 3024 // ER_QUERY_TIMEOUT (MySQL max_execution_time)
)

// classifyNumber maps a server error number to a class.
func classifyNumber(n uint16) errclass.Class {
	switch n {
	case errDeadlock:
		return errclass.Deadlock
	case errLockWaitTimeout:
		// The row lock stayed taken: retried as SQLite's busy is.
		return errclass.Busy
	case errTooManyConnections, errUserConnections:
		return errclass.TooManyConnections
	case errAccessDenied, errAccessDeniedNoPass:
		return errclass.Auth
	case errReadOnly, errReadOnlyTx:
		return errclass.ReadOnly
	case errDiskFull, errTableFull:
		return errclass.DiskFull
	case errOutOfMemory, errOutOfSortMemory, errOutOfResources:
		return errclass.InsufficientResources
	case errShutdown, errConnectionKilled:
		return errclass.AdminShutdown
	case errStatementTimeout, errExecutionTimeout, errQueryInterrupted:
		return errclass.Timeout
	case errNoSuchTable, errBadField, errNoSuchFunction, errBadDB:
		return errclass.UndefinedObject
	case errDBAccessDenied, errTableAccess, errColumnAccess, errSpecificAccess:
		return errclass.Permission
	}
	return errclass.Other
}

// Classify maps a server error number, and a connection the driver found
// broken, to a class. Other network errors (refused, reset, timed out)
// are left to target's generic checks.
func (mysqlDriver) Classify(err error) (errclass.Class, bool) {
	if me, ok := errors.AsType[*mysql.MySQLError](err); ok {
		return classifyNumber(me.Number), true
	}
	if connLost(err) {
		return errclass.ConnectionLost, true
	}
	return errclass.None, false
}

// connLost reports whether err says the session's connection is gone:
// the driver's own invalid or bad connection errors.
func connLost(err error) bool {
	return errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn)
}

// CommitOutcomeUnknown: a commit the server answered with an error did
// not happen; one the driver refused before sending it (a connection it
// knew was bad) did not either. A lost connection is not the driver's to
// decide (target's default: unknown).
func (mysqlDriver) CommitOutcomeUnknown(err error) (bool, bool) {
	if me, ok := errors.AsType[*mysql.MySQLError](err); ok {
		return me.Number == errShutdown || me.Number == errConnectionKilled, true
	}
	if errors.Is(err, driver.ErrBadConn) {
		return false, true
	}
	return false, false
}

// Message is the server's message, its error number and SQLSTATE.
func (mysqlDriver) Message(err error) (string, bool) {
	me, ok := errors.AsType[*mysql.MySQLError](err)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s (error %d, SQLSTATE %s)", target.MaskURL(me.Message), me.Number, me.SQLState[:]), true
}

// ResultMessage words a server error as libpq does: "ERROR:  message".
func (mysqlDriver) ResultMessage(err error, _ string) (string, bool) {
	me, ok := errors.AsType[*mysql.MySQLError](err)
	if !ok {
		return "", false
	}
	return "ERROR:  " + me.Message + "\n", true
}

// UndefinedTable is error 1146, a table that does not exist.
func (mysqlDriver) UndefinedTable(err error) (bool, bool) {
	if me, ok := errors.AsType[*mysql.MySQLError](err); ok {
		return me.Number == errNoSuchTable, true
	}
	return false, false
}
