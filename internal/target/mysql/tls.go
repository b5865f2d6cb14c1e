package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
	"github.com/txnbench/txnbench/internal/target"
)

// caParam is txnbench's URL parameter naming a CA certificate file (PEM):
// the client then speaks TLS only, and only to a server whose certificate
// that CA signed for the URL's host. Nothing it sends before the TLS
// handshake names the user or carries a password, so a server that cannot
// show such a certificate (another local user's on a freed port) learns
// nothing and passes for nothing.
const caParam = "tls-ca"

// maxCAFile bounds the CA file read.
const maxCAFile = 1 << 20

// verifiedTLS is the TLS configuration of a URL with tls-ca=FILE for host:
// TLS 1.2 at least, the server's certificate verified against FILE's CA
// for host; seen receives each handshake's state.
func verifiedTLS(file, host string, seen *atomic.Pointer[tls.ConnectionState]) (*tls.Config, error) {
	fi, err := os.Stat(file)
	if err == nil && (!fi.Mode().IsRegular() || fi.Size() > maxCAFile) {
		err = fmt.Errorf("not a regular file of at most %d bytes", maxCAFile)
	}
	var pem []byte
	if err == nil {
		pem, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s=%s: %v", target.ErrMalformedURL, caParam, file, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: %s=%s holds no PEM certificate", target.ErrMalformedURL, caParam, file)
	}
	return &tls.Config{
		RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12,
		VerifyConnection: func(cs tls.ConnectionState) error {
			seen.Store(&cs)
			return nil
		},
	}, nil
}

// TLS is what the last verified handshake negotiated (every session of a
// target uses one configuration against one server).
func (s *mysqlConn) TLS() (version, cipher string, ok bool) {
	cs := s.tls.Load()
	if cs == nil {
		return "", "", false
	}
	return tls.VersionName(cs.Version), tls.CipherSuiteName(cs.CipherSuite), true
}

var _ target.TLSReporter = (*mysqlConn)(nil)

// refusingConnector is the driver's connector of a URL with tls-ca, a
// refused server named: see refused.
type refusingConnector struct {
	driver.Connector
	cfg *mysql.Config
}

func (c refusingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	return conn, refused(c.cfg, err)
}

// refused turns a connection the client broke off because the server did
// not offer the TLS cfg requires, or showed a certificate its tls-ca's CA
// did not sign, into a target.Refused naming the server; other errors
// pass unchanged.
func refused(cfg *mysql.Config, err error) error {
	if err == nil {
		return err
	}
	r := func(reason string) error { return &target.Refused{Addr: cfg.Addr, Reason: reason, Err: err} }
	if bad := target.BadCertificate(err, caParam); bad != "" {
		return r("showed a certificate " + bad + ", which " + caParam + " refuses")
	}
	if errors.Is(err, mysql.ErrNoTLS) {
		return r("does not offer TLS, which " + caParam + " requires")
	}
	return err
}
