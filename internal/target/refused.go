package target

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
)

// Refused is a connection the client broke off itself because the server
// did not prove it is the one the URL means: it asked for a method the
// URL does not allow (a cleartext password where require_auth asks for
// SCRAM), showed a certificate the URL's CA did not sign, or refused the
// TLS the URL requires. On a throwaway service's port, freed by a fault,
// that is what another local user's fake server does, hence the hint. It
// is of errclass.Auth (it unwraps to ErrAuthRefused) and to the driver's
// error.
type Refused struct {
	Addr   string // host:port (or socket) of the server
	Reason string // what it did, e.g. "asked for a cleartext password, which require_auth refuses"
	Err    error  // the driver's error
}

// Error leads with the hint, so a report that shortens the message keeps
// it.
func (e *Refused) Error() string {
	return "another local process may hold the port: the server at " + e.Addr + " " + e.Reason
}

func (e *Refused) Unwrap() []error { return []error{ErrAuthRefused, e.Err} }

// BadCertificate says what is wrong with the certificate a server showed
// when the client's verification of it failed (not signed by the CA the
// client trusts, named by param, e.g. "sslrootcert", or not for the host),
// "" for any other error.
func BadCertificate(err error, param string) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown):
		return "its " + param + "'s CA did not sign"
	case errors.As(err, &host):
		return "for another host (" + host.Error() + ")"
	case errors.As(err, &invalid):
		return "that is not valid (" + invalid.Error() + ")"
	case errors.As(err, &verify):
		return "that failed verification (" + verify.Err.Error() + ")"
	}
	return ""
}
