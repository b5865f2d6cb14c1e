package localdb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"path/filepath"
	"time"
)

// The files of a service that serves TLS, in its directory.
const (
	tlsCAName   = "ca.crt"
	tlsCertName = "server.crt"
	tlsKeyName  = "server.key"
)

// certValidity is how long a run's certificates are valid: longer than any
// run, as the CA's key is gone with the run.
const certValidity = 30 * 24 * time.Hour

// CA is a certificate authority made for one run (ECDSA P-256): it signs
// the certificates of the run's throwaway services (temp-postgres,
// PgBouncer, temp-mariadb) and its key never leaves txnbench's memory, so no other
// process can make a certificate its clients accept. Clients verify the
// services against it (sslmode=verify-full): a process of another local
// user that takes a service's port while it is down cannot pass for it.
type CA struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
	pem  []byte // the certificate, PEM
}

// NewCA makes a new CA for one run.
func NewCA() (*CA, error) {
	key, der, err := newCert(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "txnbench run CA"},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}, nil, "the run's TLS CA key", "the run's TLS CA")
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("making the run's TLS CA: %w", err)
	}
	return &CA{key: key, cert: cert, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// PEM returns the CA's certificate, PEM-encoded, for clients to verify
// against.
func (ca *CA) PEM() []byte { return ca.pem }

// newCert makes a new key and a certificate of it from tmpl, valid from
// an hour ago for certValidity and signed by ca (nil: by the new key, for
// a CA of its own); its errors say making keyWhat or certWhat.
func newCert(tmpl *x509.Certificate, ca *CA, keyWhat, certWhat string) (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("making %s: %w", keyWhat, err)
	}
	now := time.Now()
	tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = serial(), now.Add(-time.Hour), now.Add(certValidity)
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return nil, nil, fmt.Errorf("making %s: %w", certWhat, err)
	}
	return key, der, nil
}

// serial is a random certificate serial number.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// tlsFiles are the paths of a service's CA certificate, certificate and
// key.
type tlsFiles struct{ ca, cert, key string }

// issue writes into dir a new certificate for 127.0.0.1 and localhost
// signed by ca, its key, and ca's certificate, each 0600 and owned by u
// (the service's user; nil: ourselves), and returns their paths.
func (ca *CA) issue(dir string, u *runAs) (tlsFiles, error) {
	key, der, err := newCert(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "127.0.0.1"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost"},
	}, ca, "a TLS key", "a TLS certificate")
	if err != nil {
		return tlsFiles{}, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tlsFiles{}, fmt.Errorf("encoding a TLS key: %w", err)
	}
	f := tlsFiles{ca: filepath.Join(dir, tlsCAName), cert: filepath.Join(dir, tlsCertName), key: filepath.Join(dir, tlsKeyName)}
	for _, w := range []struct {
		path string
		data []byte
	}{
		{f.ca, ca.pem},
		{f.cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})},
		{f.key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})},
	} {
		if err := writeSecret(w.path, string(w.data), u); err != nil {
			return tlsFiles{}, err
		}
	}
	return f, nil
}

// clientTLS is the URL query of a service's clients: TLS, verified
// against caFile (the run's CA) for the address they dial; "sslmode=disable"
// when caFile is "" (no TLS).
func clientTLS(caFile string) string {
	if caFile == "" {
		return "sslmode=disable"
	}
	return "sslmode=verify-full&sslrootcert=" + url.QueryEscape(caFile)
}
