package pg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// serverFirst makes a failure to connect say the server's answer first.
// With sslmode=prefer pgx tries TLS, then plain text, and joins both
// errors, so a missing database read "tls error: server refused TLS
// connection" before `database "x" does not exist`. The attempts the
// server answered (a *pgconn.PgError) come first; the error still unwraps
// to pgx's.
func serverFirst(err error) error {
	ce, ok := err.(*pgconn.ConnectError)
	if !ok || ce.Config == nil {
		return err
	}
	joined, ok := ce.Unwrap().(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var answered, other []string
	for _, e := range joined.Unwrap() {
		if pe := (*pgconn.PgError)(nil); errors.As(e, &pe) {
			answered = append(answered, e.Error())
		} else {
			other = append(other, e.Error())
		}
	}
	if len(answered) == 0 || len(other) == 0 {
		return err
	}
	msg := fmt.Sprintf("failed to connect to `user=%s database=%s`:\n\t%s", ce.Config.User, ce.Config.Database,
		strings.Join(append(answered, other...), "\n\t"))
	return &reordered{msg: msg, err: err}
}

// reordered is an error with its message rewritten, unwrapping to it.
type reordered struct {
	msg string
	err error
}

func (e *reordered) Error() string { return e.msg }
func (e *reordered) Unwrap() error { return e.err }
