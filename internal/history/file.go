package history

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/txnbench/txnbench/internal/userfile"
)

// The file form of a history: the magic line, then unsigned varints
// (signed ones zig-zag): model, the counts of txns, micro-ops and values,
// each txn (start, end - start, process, ops, outcome), each micro-op
// (kind, key, value, list length), each value. Offsets are implied by the
// order, so a file cannot point outside itself.
const magic = "txnbench history 1\n"

// MaxFileSize is the largest history file Load reads.
const MaxFileSize = 4 << 30

// Save writes h to w in the file form.
func Save(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(magic)
	var buf [binary.MaxVarintLen64]byte
	u := func(x uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], x)]) }
	s := func(x int64) { bw.Write(buf[:binary.PutVarint(buf[:], x)]) }
	u(uint64(h.Model))
	u(uint64(len(h.Txns)))
	u(uint64(len(h.Ops)))
	u(uint64(len(h.Vals)))
	for _, t := range h.Txns {
		s(t.Start)
		s(t.End - t.Start)
		s(int64(t.Process))
		u(uint64(t.Len))
		u(uint64(t.Outcome))
	}
	// Micro-ops in txn order, so their offsets follow from the counts.
	for i := range h.Txns {
		for _, op := range h.TxnOps(i) {
			u(uint64(op.Kind))
			s(op.Key)
			s(op.Value)
			u(uint64(op.Len))
		}
	}
	for i := range h.Txns {
		for _, op := range h.TxnOps(i) {
			if op.Kind == Read && h.Model == ListAppend {
				for _, v := range h.List(&op) {
					s(v)
				}
			}
		}
	}
	return bw.Flush()
}

// Load reads a history file Save wrote; path is the user's (a regular
// file of at most MaxFileSize bytes). Anything else is refused in one
// line naming the fix.
func Load(path string) (*History, error) {
	b, err := userfile.Read(path, MaxFileSize, "a history file txnbench saved (--history FILE)")
	if err != nil {
		return nil, err
	}
	h, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not a txnbench history (%v): give a file txnbench saved with --history FILE", path, err)
	}
	return h, nil
}

var errShort = errors.New("it ends early")

// The fewest bytes a transaction's and a micro-op's records take.
const txnBytes, opBytes = 5, 4

// Decode reads the file form from b.
func Decode(b []byte) (*History, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, errors.New("it does not begin with the history header")
	}
	b = b[len(magic):]
	var bad error
	u := func() uint64 {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			bad = errShort
			return 0
		}
		b = b[n:]
		return x
	}
	s := func() int64 { // binary.Varint: the zig-zag of a uvarint
		x := u()
		return int64(x>>1) ^ -int64(x&1)
	}
	h := &History{Model: Model(u())}
	nt, no, nv := u(), u(), u()
	// A transaction's record takes 5 bytes at least (five varints), a
	// micro-op's 4, a value's 1: counts beyond what the bytes left can
	// hold lie, and are refused before anything is allocated by them (so
	// a file's records take at most 8 times its size in memory).
	left := uint64(len(b))
	if bad != nil || nt > left/txnBytes || no > left/opBytes || nv > left || txnBytes*nt+opBytes*no+nv > left {
		return nil, errShort
	}
	h.Txns, h.Ops, h.Vals = make([]Txn, nt), make([]Op, no), make([]int64, nv)
	var off uint64
	for i := range h.Txns {
		t := &h.Txns[i]
		t.Start = s()
		t.End = t.Start + s()
		t.Process = int32(s())
		n := u()
		t.Outcome = Outcome(u())
		if n > no-off {
			return nil, errors.New("its transactions hold more micro-ops than it counts")
		}
		t.Off, t.Len = uint32(off), uint32(n)
		off += n
	}
	if bad != nil || off != no {
		return nil, cmpErr(bad, "its transactions hold fewer micro-ops than it counts")
	}
	var voff uint64
	for i := range h.Ops {
		op := &h.Ops[i]
		op.Kind = Kind(u())
		op.Key, op.Value = s(), s()
		n := u()
		if op.Kind == Read && h.Model == ListAppend {
			if n > nv-voff {
				return nil, errors.New("its lists hold more values than it counts")
			}
			op.Off = uint32(voff)
			voff += n
		} else if n > 1 {
			return nil, errors.New("a micro-op that is not a list read holds a list")
		}
		op.Len = uint32(n)
	}
	if bad != nil || voff != nv {
		return nil, cmpErr(bad, "its lists hold fewer values than it counts")
	}
	for i := range h.Vals {
		h.Vals[i] = s()
	}
	if bad != nil {
		return nil, bad
	}
	if len(b) != 0 {
		return nil, errors.New("bytes follow its end")
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return h, nil
}

func cmpErr(bad error, msg string) error {
	if bad != nil {
		return bad
	}
	return errors.New(msg)
}
