package pg

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txnbench/txnbench/internal/target"
)

// authRefused is a login the client broke off because the server asked
// for a method the URL's require_auth does not allow (libpq's parameter,
// which pgx honours: require_auth=scram-sha-256 sends no password when the
// server asks for a cleartext one or an MD5 hash, breaks off when it says
// AuthenticationOk before any SCRAM exchange, and checks the server's
// SCRAM signature).
type authRefused struct {
	addr  string // host:port of the server
	asked string // what it asked for, e.g. "a cleartext password"
	err   error  // pgx's error
}

func (e *authRefused) Error() string {
	return fmt.Sprintf("the server at %s asked for %s, which require_auth refuses: another local process may hold the port", e.addr, e.asked)
}

func (e *authRefused) Unwrap() []error { return []error{target.ErrAuthRefused, e.err} }

// refusedAuth turns pgx's failed require_auth check into an authRefused
// naming the server and what it asked for; other errors pass unchanged.
func refusedAuth(err error) error {
	var ce *pgconn.ConnectError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	msg := ce.Unwrap().Error()
	i := strings.Index(msg, "authentication method requirement")
	if i < 0 {
		return err
	}
	asked := "a method it does not allow"
	switch reason := msg[i:]; {
	case strings.Contains(reason, "requested password authentication"):
		asked = "a cleartext password"
	case strings.Contains(reason, "requested md5 authentication"):
		asked = "an MD5 password hash"
	case strings.Contains(reason, "did not complete authentication"):
		asked = "nothing (it let the client in without a SCRAM exchange)"
	case strings.Contains(reason, "requested gss authentication"):
		asked = "GSSAPI authentication"
	}
	addr := "?"
	if ce.Config != nil {
		addr = net.JoinHostPort(ce.Config.Host, strconv.Itoa(int(ce.Config.Port)))
		if strings.HasPrefix(ce.Config.Host, "/") {
			addr = ce.Config.Host
		}
	}
	return &authRefused{addr: addr, asked: asked, err: err}
}
