package testutil

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
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
	mu       sync.Mutex
	startups int
	sent     []ImpostorMessage
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
	im := &Impostor{}
	go func() {
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go im.serve(c, auths[n%len(auths)])
		}
	}()
	return im
}

// Startups is how many clients sent a startup message.
func (im *Impostor) Startups() int {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.startups
}

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
		if code := binary.BigEndian.Uint32(body); code == sslRequest || code == gssRequest {
			if _, err := c.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		break
	}
	im.mu.Lock()
	im.startups++
	im.mu.Unlock()
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
