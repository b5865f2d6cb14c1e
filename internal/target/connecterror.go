package target

import (
	"errors"

	"github.com/txnbench/txnbench/internal/errclass"
)

// ConnectError turns a failure to connect into one line naming the fix.
func ConnectError(url string, err error) error {
	where := MaskURL(url)
	var msg string
	switch Classify(err) {
	case errclass.Auth:
		if errors.Is(err, ErrAuthRefused) { // the message says what happened
			return &lineError{msg: "cannot log in to " + where + ": " + errclass.OneLine(err.Error()), err: err}
		}
		msg = "cannot log in to " + where + ": check the user name and password in the URL"
	case errclass.ConnectRefused:
		msg = "cannot reach " + where + ": connection refused; is the server running and listening there?"
	case errclass.Timeout:
		msg = "cannot reach " + where + ": timed out; check the host, port and firewall"
	case errclass.TooManyConnections:
		msg = where + " refuses new connections (too many clients): lower --clients or raise max_connections"
	default:
		msg = "cannot connect to " + where
	}
	return &lineError{msg: msg + ": " + errclass.OneLine(err.Error()), err: err}
}

// lineError shows a one-line message and still unwraps to the cause.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }
