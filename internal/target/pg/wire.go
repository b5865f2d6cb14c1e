package pg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
)

// wire is a script statement's messages, written into one buffer that is
// reused from statement to statement and sent with one write (issue 31:
// pgproto3's Send* encode each message through its own struct, check and
// trace it, and copy it into the frontend's buffer; for a prepared
// statement that was most of the client's sending cost). The messages are
// the ones libpq sends for PQsendQuery, PQsendQueryParams and
// PQsendQueryPrepared: text parameters, text results.
type wire struct {
	buf []byte
	err error // the first message that could not be encoded
}

// maxBody is the largest message body the server accepts (PostgreSQL's
// PQ_LARGE_MESSAGE_LIMIT less one, as pgproto3 checks it).
const maxBody = 0x3fffffff - 1

// begin starts a message of type t; end fills in its length.
func (w *wire) begin(t byte) int {
	w.buf = append(w.buf, t, 0, 0, 0, 0)
	return len(w.buf) - 4
}

func (w *wire) end(at int) {
	n := len(w.buf) - at
	if n > maxBody && w.err == nil {
		w.err = errors.New("message body too large")
	}
	binary.BigEndian.PutUint32(w.buf[at:], uint32(n))
}

func (w *wire) cstring(s string) {
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
}

// query is a simple-protocol Query.
func (w *wire) query(sql string) {
	at := w.begin('Q')
	w.cstring(sql)
	w.end(at)
}

// parse prepares sql as the unnamed statement, its parameters' types left
// to the server.
func (w *wire) parse(sql string) {
	at := w.begin('P')
	w.buf = append(w.buf, 0) // the unnamed statement
	w.cstring(sql)
	w.buf = append(w.buf, 0, 0) // no parameter types
	w.end(at)
}

// bind binds statement (named, or "" for the unnamed one) to the unnamed
// portal with params as text (nil: SQL NULL), results as text.
func (w *wire) bind(statement string, params [][]byte) {
	if len(params) > 0xffff && w.err == nil {
		w.err = errors.New("too many parameters")
	}
	n := 5 + 1 + len(statement) + 1 + 2 + 2 + 4*len(params) + 2
	for _, p := range params {
		n += len(p)
	}
	b := slices.Grow(w.buf, n) // one growth check for the whole message
	at := len(b) + 1
	b = append(b, 'B', 0, 0, 0, 0, 0) // its length, then the unnamed portal
	b = append(b, statement...)
	b = append(b, 0, 0, 0) // no format codes: all text
	b = binary.BigEndian.AppendUint16(b, uint16(len(params)))
	for _, p := range params {
		if p == nil {
			b = append(b, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	b = append(b, 0, 0) // no result format codes: all text
	w.buf = b
	w.end(at)
}

// describePortal asks for the unnamed portal's row description.
func (w *wire) describePortal() {
	w.buf = append(w.buf, 'D', 0, 0, 0, 6, 'P', 0)
}

// execute runs the unnamed portal to completion; sync ends the exchange.
func (w *wire) execute() { w.buf = append(w.buf, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) }
func (w *wire) sync()    { w.buf = append(w.buf, 'S', 0, 0, 0, 4) }

// send writes the messages to c and empties the buffer. Its errors read
// and classify as the frontend's Flush's: "write failed", safe to retry
// when nothing was written.
func (w *wire) send(c net.Conn) error {
	buf, err := w.buf, w.err
	w.buf, w.err = w.buf[:0], nil
	if cap(w.buf) > 64<<10 {
		w.buf = nil // a large statement's buffer is not kept
	}
	if err != nil {
		return &sendError{err: err, safeToRetry: true}
	}
	if n, err := c.Write(buf); err != nil {
		return &sendError{err: err, safeToRetry: n == 0}
	}
	return nil
}

// sendError is a failed send, as pgproto3 reports one: SafeToRetry tells
// whether the server may have seen any of it (target.CommitOutcomeUnknown).
type sendError struct {
	err         error
	safeToRetry bool
}

func (e *sendError) Error() string     { return fmt.Sprintf("write failed: %s", e.err) }
func (e *sendError) SafeToRetry() bool { return e.safeToRetry }
func (e *sendError) Unwrap() error     { return e.err }
