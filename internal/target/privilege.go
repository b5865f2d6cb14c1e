package target

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// PermissionDenied reports whether the server refused err's statement for
// lack of a privilege (SQLSTATE 42501), e.g. pg_stat_reset as a role that
// is not a superuser.
func PermissionDenied(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501"
}
