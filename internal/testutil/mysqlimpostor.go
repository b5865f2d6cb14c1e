package testutil

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"io"
	"net"
	"strings"
	"time"
)

// The MySQL protocol's capability flags a MySQLImpostor offers.
const (
	myClientMySQL        = 1 << 0 // CLIENT_LONG_PASSWORD: MySQL, not MariaDB
	myClientProtocol41   = 1 << 9
	myClientSSL          = 1 << 11
	myClientSecureConn   = 1 << 15
	myClientPluginAuth   = 1 << 19
	myClientLenEncAuth   = 1 << 21
	myClientDeprecateEOF = 1 << 24
)

// ServeMySQLImpostor serves a fake MySQL 8 server on ln until it is
// closed, as another local user could run on a port a server left free.
// It greets every client offering caching_sha2_password, answers its login
// with "perform full authentication", hands out its own RSA public key
// when asked, decrypts the password the client then sends (Leaked) and
// refuses it with "access denied". Clients in turn are offered TLS with a
// certificate it signed itself (not one a client verifying against a CA
// of its own accepts) and no TLS at all. Startups counts the logins
// (handshake responses, which carry the user name) it received, Sent the
// messages after them, SSLRequests and Handshakes the clients that asked
// for TLS and went on with its certificate.
func ServeMySQLImpostor(ln net.Listener) (*Impostor, error) {
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	im := &Impostor{tls: &tls.Config{Certificates: []tls.Certificate{cert}}}
	im.acceptEach(ln, func(c net.Conn, n int) { im.serveMySQL(c, n%2 == 0, key) })
	return im, nil
}

// Leaked is the passwords clients sent a MySQLImpostor that it could read.
func (im *Impostor) Leaked() []string {
	im.mu.Lock()
	defer im.mu.Unlock()
	return append([]string(nil), im.leaked...)
}

func (im *Impostor) serveMySQL(c net.Conn, offerTLS bool, key *rsa.PrivateKey) {
	defer func() { c.Close() }()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	scramble := make([]byte, 20)
	_, _ = rand.Read(scramble)
	for i := range scramble { // no NUL: it ends the scramble's second part
		scramble[i] = scramble[i]%127 + 1
	}
	caps := uint32(myClientMySQL | myClientProtocol41 | myClientSecureConn | myClientPluginAuth | myClientLenEncAuth | myClientDeprecateEOF)
	if offerTLS {
		caps |= myClientSSL
	}
	g := []byte{10}
	g = append(g, "8.0.36\x00"...)
	g = binary.LittleEndian.AppendUint32(g, 7) // connection id
	g = append(g, scramble[:8]...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps))
	g = append(g, 255, 2, 0) // utf8mb4, autocommit
	g = binary.LittleEndian.AppendUint16(g, uint16(caps>>16))
	g = append(g, 21)
	g = append(g, make([]byte, 10)...)
	g = append(g, scramble[8:]...)
	g = append(g, 0)
	g = append(g, "caching_sha2_password\x00"...)
	seq := byte(0)
	if writePacket(c, &seq, g) != nil {
		return
	}
	p, ok := readPacket(c, &seq)
	if !ok {
		return
	}
	if len(p) == 32 && binary.LittleEndian.Uint32(p)&myClientSSL != 0 {
		im.sslRequests.Add(1)
		tc := tls.Server(c, im.tls)
		if tc.Handshake() != nil {
			return // the client refused the certificate
		}
		im.handshakes.Add(1)
		c = tc
		if p, ok = readPacket(c, &seq); !ok {
			return
		}
	}
	im.mu.Lock()
	im.sent = append(im.sent, ImpostorMessage{Type: "login", Body: p})
	im.mu.Unlock()
	im.startups.Add(1) // after the login is in sent, as a test reads them
	// perform full authentication, then whatever the client sends
	if writePacket(c, &seq, []byte{1, 4}) != nil {
		return
	}
	for range 2 {
		p, ok := readPacket(c, &seq)
		if !ok {
			return
		}
		im.mu.Lock()
		im.sent = append(im.sent, ImpostorMessage{Type: "auth", Body: p})
		im.mu.Unlock()
		switch {
		case len(p) == 1 && p[0] == 2: // the client asks for the public key
			der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
			if writePacket(c, &seq, append([]byte{1}, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})...)) != nil {
				return
			}
			continue
		case len(p) == 256: // the password, encrypted with its key
			if plain, err := rsa.DecryptOAEP(sha1.New(), nil, key, p, nil); err == nil {
				for i := range plain {
					plain[i] ^= scramble[i%len(scramble)]
				}
				im.leak(strings.TrimRight(string(plain), "\x00"))
			}
		default: // the password in clear (over its TLS)
			im.leak(strings.TrimRight(string(p), "\x00"))
		}
		break
	}
	deny := []byte{0xff, 0x15, 0x04, '#'} // 1045 access denied
	deny = append(deny, "28000Access denied"...)
	_ = writePacket(c, &seq, deny)
}

func (im *Impostor) leak(pw string) {
	im.mu.Lock()
	im.leaked = append(im.leaked, pw)
	im.mu.Unlock()
}

// writePacket writes a MySQL packet: its length, sequence number, payload.
func writePacket(c net.Conn, seq *byte, payload []byte) error {
	h := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), *seq}
	*seq++
	_, err := c.Write(append(h, payload...))
	return err
}

// readPacket reads a MySQL packet's payload.
func readPacket(c net.Conn, seq *byte) ([]byte, bool) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil, false
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	*seq = h[3] + 1
	p := make([]byte, n)
	if _, err := io.ReadFull(c, p); err != nil {
		return nil, false
	}
	return p, true
}
