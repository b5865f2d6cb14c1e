package pg

import (
	"errors"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txnbench/txnbench/internal/target"
)

// refusedAuth turns pgx's failed require_auth check (libpq's parameter,
// which pgx honours: require_auth=scram-sha-256 sends no password when the
// server asks for a cleartext one or an MD5 hash, breaks off when it says
// AuthenticationOk before any SCRAM exchange, and checks the server's
// SCRAM signature), a server certificate the client did not accept, and a
// server that refused the TLS the URL requires into a target.Refused
// naming the server and what it did; other errors pass unchanged.
func refusedAuth(err error) error {
	var ce *pgconn.ConnectError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	refused := func(reason string) error { return &target.Refused{Addr: connAddr(ce), Reason: reason, Err: err} }
	if bad := target.BadCertificate(err, "sslrootcert"); bad != "" {
		return refused("showed a certificate " + bad + ", which sslmode=verify-full refuses")
	}
	msg := ce.Unwrap().Error()
	if strings.Contains(msg, "server refused TLS connection") && tlsOnly(ce.Config) {
		return refused("refused TLS, which the URL's sslmode requires")
	}
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
	return refused("asked for " + asked + ", which require_auth refuses")
}

// tlsOnly reports whether every attempt of cfg is TLS (sslmode=require,
// verify-ca or verify-full): a server that refuses TLS is then refused, not
// a case of falling back to plain text.
func tlsOnly(cfg *pgconn.Config) bool {
	if cfg == nil || cfg.TLSConfig == nil {
		return false
	}
	for _, f := range cfg.Fallbacks {
		if f.TLSConfig == nil {
			return false
		}
	}
	return true
}

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
