package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
)

// driver is the PostgreSQL-wire driver as target sees it.
type driver struct{}

func init() { target.Register(driver{}, target.ServerURL) }

func (driver) Open(ctx context.Context, sp target.Spec) (target.Target, error) {
	return openPG(ctx, sp.URL)
}

// Classify maps a server's SQLSTATE, and pgx's own timeouts and closed
// connections, to a class.
func (driver) Classify(err error) (errclass.Class, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if poolerRefused(pgErr) {
			return errclass.ConnectRefused, true
		}
		if slices.Contains(poolerServerLost, pgErr.Message) {
			return errclass.ConnectionLost, true
		}
		return classifySQLState(pgErr.Code), true
	}
	if pgconn.Timeout(err) {
		return errclass.Timeout, true
	}
	if isConnClosed(err) {
		return errclass.ConnectionLost, true
	}
	return errclass.None, false
}

func isConnClosed(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return false
	}
	// pgx reports use of a connection that died earlier as "conn closed".
	return err.Error() == "conn closed" || errors.Unwrap(err) != nil && isConnClosed(errors.Unwrap(err))
}

func classifySQLState(code string) errclass.Class {
	switch code {
	case "40001":
		return errclass.Serialization
	case "40P01":
		return errclass.Deadlock
	case "53300", "53400":
		return errclass.TooManyConnections
	case "28P01", "28000":
		return errclass.Auth
	case "57P01", "57P02", "57P03":
		return errclass.AdminShutdown
	case "57014", "25P03":
		return errclass.Timeout
	case "53100":
		return errclass.DiskFull
	case "25006":
		return errclass.ReadOnly
	case "42P01", "42703", "42883", "42704":
		return errclass.UndefinedObject
	case "42501":
		return errclass.Permission
	}
	if strings.HasPrefix(code, "53") {
		return errclass.InsufficientResources
	}
	return errclass.Other
}

// poolerRefusals are PgBouncer's messages to a client it turns away
// before the client's query reached a server (at login, or while the
// query waited for a server connection): the server login keeps failing
// (for server_login_retry after a failed one, also once the server is
// back), no server connection came in time, none could be made, too many
// clients. They end the client's session (FATAL), yet nothing was sent
// on. PgBouncer's "server conn crashed?" is not one: the server died
// with the query.
var poolerRefusals = []string{
	"server login has been failing, try again later (server_login_retry)",
	"query_wait_timeout",
	"pgbouncer cannot connect to server",
	"no more connections allowed (max_client_conn)",
}

// poolerServerLost are PgBouncer's messages to a client whose server
// connection went away under it (the server killed or restarted while
// the client's transaction or query held it): the session is lost, as a
// closed connection is (SQLSTATE 08P01, which is otherwise a protocol
// violation, "other"); whether a commit in flight happened is unknown.
var poolerServerLost = []string{
	"server conn crashed?",
	"server connection closed",
}

// poolerRefused reports whether the error is a pooler's refusal of a
// client whose query reached no server (see poolerRefusals).
func poolerRefused(pgErr *pgconn.PgError) bool {
	return slices.Contains(poolerRefusals, pgErr.Message)
}

// CommitOutcomeUnknown: a commit the server answered with an error did
// not happen, unless the error says the completion is unknown or ended
// the session; one a pooler refused before it reached a server did not
// happen either.
func (driver) CommitOutcomeUnknown(err error) (bool, bool) {
	if errors.Is(err, errRolledBack) {
		return false, true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if poolerRefused(pgErr) {
			return false, true
		}
		return pgErr.Code == "40003" || // CockroachDB: statement completion unknown
			pgErr.Severity == "FATAL" || pgErr.Severity == "PANIC", true
	}
	return false, false
}

// Message is the server's message, severity and SQLSTATE.
func (driver) Message(err error) (string, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("%s: %s (SQLSTATE %s)", pgErr.Severity, pgErr.Message, pgErr.Code), true
	}
	return "", false
}

// ResultMessage is LibpqResultMessage for the server's errors.
func (driver) ResultMessage(err error, query string) (string, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return LibpqResultMessage(pgErr, query), true
	}
	return "", false
}

// UndefinedTable is SQLSTATE 42P01.
func (driver) UndefinedTable(err error) (bool, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "42P01", true
	}
	return false, false
}

var (
	_ target.ConnectWorder  = driver{}
	_ target.ConnInfoer     = driver{}
	_ target.PasswordFinder = driver{}
	_ target.Resolver       = driver{}
)
