package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The PostgreSQL authentication requests an Impostor may answer a startup
// with (the codes of AuthenticationOk, AuthenticationCleartextPassword and
// AuthenticationMD5Password).
const (
	AuthOk        = 0
	AuthCleartext = 3
	AuthMD5       = 5
)

// Impostor is a fake PostgreSQL-wire server, as another local user could
// run on a port a server left free: it answers every client's startup with
// an authentication request of its choosing (in turn from the list given
// to ServeImpostor) and records what the client sends next. A client that
// holds to SCRAM sends nothing and hangs up; one that does not sends a
// password message ('p': the password itself, or its MD5 hash), or after
// AuthOk (followed by ReadyForQuery) its first query.
type Impostor struct {
	// conns counts the connections accepted, startups the clients that
	// sent a startup message.
	conns, startups atomic.Int32
	// tls, when set, is the certificate it answers a client's SSLRequest
	// with (ServeTLSImpostor); sslRequests and handshakes count them.
	tls                     *tls.Config
	sslRequests, handshakes atomic.Int32
	mu                      sync.Mutex // guards sent and leaked
	sent                    []ImpostorMessage
	leaked                  []string // the passwords a MySQL impostor read
}

// ImpostorMessage is a message a client sent an Impostor after its
// authentication request.
type ImpostorMessage struct {
	Auth int    // the request the client was answering
	Type string // the message type, e.g. "p"
	Body []byte
}

// ServeImpostor serves connections on ln until it is closed. auths must
// not be empty.
func ServeImpostor(ln net.Listener, auths []int) *Impostor {
	return serveImpostor(ln, auths, &Impostor{})
}

// ServeTLSImpostor is ServeImpostor serving TLS to the clients that ask
// for it, with a certificate for 127.0.0.1 that it signed itself: as
// another local user could make, not the one a client verifying against a
// CA of its own (sslmode=verify-full) accepts.
func ServeTLSImpostor(ln net.Listener, auths []int) (*Impostor, error) {
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	return serveImpostor(ln, auths, &Impostor{tls: &tls.Config{Certificates: []tls.Certificate{cert}}}), nil
}

// SSLRequests is how many clients asked a TLS impostor for TLS, and
// Handshakes how many of them completed the TLS handshake with it.
func (im *Impostor) SSLRequests() (requests, handshakes int) {
	return int(im.sslRequests.Load()), int(im.handshakes.Load())
}

// selfSigned makes a certificate for 127.0.0.1 signed by its own key.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func serveImpostor(ln net.Listener, auths []int, im *Impostor) *Impostor {
	im.acceptEach(ln, func(c net.Conn, n int) { im.serve(c, auths[n%len(auths)]) })
	return im
}

// acceptEach serves each connection ln accepts (the n-th, from 0) on a
// goroutine of its own, counted, until ln is closed.
func (im *Impostor) acceptEach(ln net.Listener, serve func(c net.Conn, n int)) {
	go func() {
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			im.conns.Add(1)
			go serve(c, n)
		}
	}()
}

// Conns is how many connections it accepted.
func (im *Impostor) Conns() int { return int(im.conns.Load()) }

// Startups is how many clients sent a startup message.
func (im *Impostor) Startups() int { return int(im.startups.Load()) }

// Sent is what clients sent after the authentication request.
func (im *Impostor) Sent() []ImpostorMessage {
	im.mu.Lock()
	defer im.mu.Unlock()
	return append([]ImpostorMessage(nil), im.sent...)
}

const (
	sslRequest = 80877103
	gssRequest = 80877104
)

func (im *Impostor) serve(c net.Conn, auth int) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	for {
		body, ok := readStartup(c)
		if !ok {
			return
		}
		if code := binary.BigEndian.Uint32(body); code == sslRequest && im.tls != nil {
			im.sslRequests.Add(1)
			if _, err := c.Write([]byte{'S'}); err != nil {
				return
			}
			tc := tls.Server(c, im.tls)
			if err := tc.Handshake(); err != nil {
				return // the client refused the certificate
			}
			im.handshakes.Add(1)
			c = tc
			continue
		} else if code == sslRequest || code == gssRequest {
			if _, err := c.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		break
	}
	im.startups.Add(1)
	var req []byte
	switch auth {
	case AuthMD5:
		req = message('R', []byte{0, 0, 0, AuthMD5, 1, 2, 3, 4}) // salt 1 2 3 4
	case AuthOk:
		req = append(message('R', []byte{0, 0, 0, AuthOk}), message('Z', []byte{'I'})...)
	default:
		req = message('R', []byte{0, 0, 0, byte(auth)})
	}
	if _, err := c.Write(req); err != nil {
		return
	}
	var head [5]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return // the client hung up
	}
	n := int(binary.BigEndian.Uint32(head[1:])) - 4
	if n < 0 || n > 1<<20 {
		n = 0
	}
	body := make([]byte, n)
	_, _ = io.ReadFull(c, body)
	im.mu.Lock()
	im.sent = append(im.sent, ImpostorMessage{Auth: auth, Type: string(head[0]), Body: body})
	im.mu.Unlock()
}

// readStartup reads a startup-phase message (length, then body).
func readStartup(c net.Conn) ([]byte, bool) {
	var l [4]byte
	if _, err := io.ReadFull(c, l[:]); err != nil {
		return nil, false
	}
	n := int(binary.BigEndian.Uint32(l[:])) - 4
	if n < 4 || n > 10000 {
		return nil, false
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c, body); err != nil {
		return nil, false
	}
	return body, true
}

// message is a backend message of type t.
func message(t byte, body []byte) []byte {
	m := []byte{t, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(m[1:], uint32(len(body)+4))
	return append(m, body...)
}
