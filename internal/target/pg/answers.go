package pg

import (
	"encoding/binary"

	"github.com/txnbench/txnbench/internal/target"
)

// The answers to a script statement, read from the socket here rather
// than through pgconn's ReceiveMessage (issue 40: its lock, peek, status
// bookkeeping and a decoded struct per message cost ~1,500 instructions
// of a prepared select's ~6,500). Only the messages whose handling is
// plain are read here: ParseComplete, BindComplete, NoData,
// RowDescription when no sink wants the columns, DataRow,
// CommandComplete, EmptyQueryResponse, and ReadyForQuery when the
// session's transaction status does not change. At anything else (an
// error, a notice, a parameter status, COPY, a status change, a message
// larger than the inbox, a read that fails) the message stays unread and
// pgconn reads the rest of the exchange as before, from the inbox first
// (rawConn.Read), so that errors, the session's status and its closing
// are pgconn's as before.

// answerConn is a connection whose answers a script can read itself
// (rawConn).
type answerConn interface {
	hold() *inbox // the inbox with reads held for the caller; nil when another read is under way or failed
	more() bool   // reads what the socket has into the inbox; false when the read failed (kept for pgconn)
	release()
}

// inbox is bytes read from the socket and not yet consumed.
type inbox struct {
	buf  []byte
	r, w int
	err  error // the error a read met, for pgconn's next Read
	read int   // exchanges read through to their ReadyForQuery here
}

const inboxSize = 8 << 10

// take gives pgconn's Read what the inbox holds: bytes, then the kept
// error; ok false when it holds neither.
func (in *inbox) take(b []byte) (n int, err error, ok bool) {
	if in.r < in.w {
		n = copy(b, in.buf[in.r:in.w])
		in.r += n
		return n, nil, true
	}
	if in.err != nil {
		err, in.err = in.err, nil
		return 0, err, true
	}
	return 0, nil, false
}

// room is the space after the unread bytes, which move to the front.
func (in *inbox) room() []byte {
	if in.buf == nil {
		in.buf = make([]byte, inboxSize)
	}
	if in.r > 0 {
		in.w = copy(in.buf, in.buf[in.r:in.w])
		in.r = 0
	}
	return in.buf[in.w:]
}

// next is the next whole message: its type and body, or want > 0 when
// more bytes must be read first, or want < 0 when it cannot fit.
func (in *inbox) next() (typ byte, body []byte, want int) {
	b := in.buf[in.r:in.w]
	if len(b) < 5 {
		return 0, nil, 5 - len(b)
	}
	n := int(binary.BigEndian.Uint32(b[1:]))
	switch {
	case n < 4 || 1+n > len(in.buf):
		return 0, nil, -1 // malformed, or larger than the inbox: pgconn's
	case 1+n > len(b):
		return 0, nil, 1 + n - len(b)
	}
	return b[0], b[5 : 1+n], 0
}

// exchange is what a statement's answers said so far.
type exchange struct {
	n, count    int   // results ended; rows of the current one
	first, serr error // the server's first error; the sink's
}

func (e *exchange) row(s *pgScript, sink target.RowSink, values [][]byte) {
	if sink != nil && e.serr == nil {
		e.serr = sink.Row(e.n, s.cols, values)
	}
	e.count++
}

func (e *exchange) end(sink target.RowSink) {
	if sink != nil && e.serr == nil {
		e.serr = sink.EndResult(e.n, e.count)
	}
	e.n, e.count = e.n+1, 0
}

// answers reads the exchange's answers from c while they are plain (see
// above), with tx the session's transaction status as pgconn knows it.
// done: ReadyForQuery was read, and e is the outcome; otherwise pgconn
// reads the rest.
func (s *pgScript) answers(c answerConn, tx byte, e *exchange, sink target.RowSink) (done bool) {
	in := c.hold()
	if in == nil {
		return false
	}
	defer c.release()
	if in.buf == nil {
		in.room()
	}
	for {
		typ, body, want := in.next()
		if want < 0 {
			return false
		}
		if want > 0 {
			if !c.more() {
				return false
			}
			continue
		}
		switch typ {
		case '1', '2', 'n': // ParseComplete, BindComplete, NoData
		case 'T': // RowDescription
			if sink != nil {
				return false // the columns' names: pgconn's decoding
			}
		case 'D':
			values, ok := s.dataRow(body)
			if !ok {
				return false
			}
			e.row(s, sink, values)
		case 'C', 'I': // CommandComplete, EmptyQueryResponse
			e.end(sink)
		case 'Z':
			if len(body) != 1 || body[0] != tx {
				return false // pgconn keeps the session's status
			}
			in.r += 5 + len(body)
			in.read++
			if e.first == nil {
				e.first = e.serr
			}
			return true
		default:
			return false
		}
		in.r += 5 + len(body)
	}
}

// dataRow is a DataRow's values (nil for SQL NULL), in s's reused slice;
// they alias the inbox until the next read.
func (s *pgScript) dataRow(b []byte) ([][]byte, bool) {
	if len(b) < 2 {
		return nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	values := s.vals[:0]
	for range n {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		switch {
		case l == -1:
			values = append(values, nil)
		case l < 0 || l > len(b):
			return nil, false
		default:
			values = append(values, b[:l:l])
			b = b[l:]
		}
	}
	if len(b) != 0 {
		return nil, false
	}
	s.vals = values
	return values, true
}
