package pg

import (
	"crypto/tls"
	"crypto/x509"
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

// refusedAuth turns pgx's failed require_auth check, and a server
// certificate the client did not accept, into an authRefused naming the
// server and what it asked for; other errors pass unchanged.
func refusedAuth(err error) error {
	var ce *pgconn.ConnectError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	if bad := badCertificate(err); bad != "" {
		return &certRefused{addr: connAddr(ce), bad: bad, err: err}
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
	return &authRefused{addr: connAddr(ce), asked: asked, err: err}
}

// certRefused is a connection the client broke off because the server's
// TLS certificate did not pass its verification (sslmode=verify-full).
type certRefused struct {
	addr string // host:port of the server
	bad  string // what is wrong with the certificate
	err  error  // pgx's error
}

func (e *certRefused) Error() string {
	return fmt.Sprintf("the server at %s showed a certificate %s, which sslmode=verify-full refuses: another local process may hold the port", e.addr, e.bad)
}

func (e *certRefused) Unwrap() []error { return []error{target.ErrAuthRefused, e.err} }

// connAddr is the address a failed connection went to.
func connAddr(ce *pgconn.ConnectError) string {
	if ce.Config == nil {
		return "?"
	}
	if strings.HasPrefix(ce.Config.Host, "/") {
		return ce.Config.Host
	}
	return net.JoinHostPort(ce.Config.Host, strconv.Itoa(int(ce.Config.Port)))
}

// badCertificate says what is wrong with the certificate a server showed
// when the client's verification of it failed (sslmode=verify-ca or
// verify-full: not signed by the CA of sslrootcert, or not for the host),
// "" for any other error.
func badCertificate(err error) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown):
		return "its sslrootcert's CA did not sign"
	case errors.As(err, &host):
		return "for another host (" + host.Error() + ")"
	case errors.As(err, &invalid):
		return "that is not valid (" + invalid.Error() + ")"
	case errors.As(err, &verify):
		return "that failed verification (" + verify.Err.Error() + ")"
	}
	return ""
}
