package pg

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"
)

// arrayCodec is the codec of the array parameters that carry a batch
// (jsonb[] from [][]byte, text[] from [][]byte or []string, uuid[] from
// [][16]byte): it encodes
// the whole array in one pass into a buffer grown once. pgx's own array
// encoding appends element by element (boxing each) to a parameter buffer
// that it trims to 256 bytes after every query, so a 60 KB batch of
// documents regrew that buffer from 256 bytes each time, allocating about
// twice the batch (issue 18). The bytes on the wire are pgx's; every other
// Go type and format, and scanning, are the array type's own codec.
type arrayCodec struct {
	pgtype.Codec        // the array type's own codec
	elemOID      uint32 // pgtype.JSONBOID, pgtype.TextOID or pgtype.UUIDOID
	// own is the connection's parameter buffer (shared by its array
	// codecs): when pgx's is too small, the encoding goes here and pgx
	// carries on appending the query's other parameters to it. pgx copies
	// the parameters into its outgoing message before it encodes the next
	// query's, and a connection is used by one goroutine at a time, so
	// the buffer is free again at the next query.
	own *[]byte
}

// registerArrayCodecs puts arrayCodec in front of the jsonb[], text[] and
// uuid[] codecs of a connection's type map.
func registerArrayCodecs(m *pgtype.Map) {
	own := new([]byte)
	for _, a := range [...]struct{ oid, elem uint32 }{
		{pgtype.JSONBArrayOID, pgtype.JSONBOID},
		{pgtype.TextArrayOID, pgtype.TextOID},
		{pgtype.UUIDArrayOID, pgtype.UUIDOID},
	} {
		t, ok := m.TypeForOID(a.oid)
		if !ok {
			continue
		}
		if _, done := t.Codec.(*arrayCodec); done {
			continue
		}
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: &arrayCodec{Codec: t.Codec, elemOID: a.elem, own: own}})
	}
	// A []string for a parameter of a type pgx does not know (an enum's
	// array) is encoded by the type it maps to: this map's text[], not the
	// default map's.
	m.RegisterDefaultPgType([]string(nil), "_text")
}

func (c *arrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.([]string); ok && format == pgtype.TextFormatCode && c.elemOID == pgtype.TextOID {
		return textArray{} // e.g. an array of an enum type pgx does not know
	}
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case [][]byte:
			if c.elemOID != pgtype.UUIDOID {
				return c
			}
		case []string:
			if c.elemOID == pgtype.TextOID {
				return c
			}
		case [][16]byte:
			if c.elemOID == pgtype.UUIDOID {
				return c
			}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// Encode writes value in PostgreSQL's binary array format exactly as pgx's
// array codec does: a nil slice is NULL, a nil element a NULL element, a
// jsonb element carries its format version.
func (c *arrayCodec) Encode(value any, buf []byte) ([]byte, error) {
	var docs [][]byte
	var strs []string
	var uuids [][16]byte
	n, size, null := 0, 20, uint32(0) // header: dimensions, null flag, element type, length, lower bound
	switch v := value.(type) {
	case [][]byte:
		if v == nil {
			return nil, nil
		}
		docs, n = v, len(v)
		for _, e := range v {
			size += 4 + len(e)
			if e == nil {
				null = 1
			} else if c.elemOID == pgtype.JSONBOID {
				size++ // the version
			}
		}
	case []string:
		if v == nil {
			return nil, nil
		}
		strs, n = v, len(v)
		for _, e := range v {
			size += 4 + len(e)
		}
	case [][16]byte:
		if v == nil {
			return nil, nil
		}
		uuids, n = v, len(v)
		size += 20 * n
	}
	if n > math.MaxInt32 || size > math.MaxInt32 {
		return nil, errArrayTooLong
	}
	buf = c.grow(buf, size)
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, null)
	buf = binary.BigEndian.AppendUint32(buf, c.elemOID)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	buf = binary.BigEndian.AppendUint32(buf, 1)
	for _, e := range docs {
		switch {
		case e == nil:
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32) // -1: NULL
		case c.elemOID == pgtype.JSONBOID:
			buf = binary.BigEndian.AppendUint32(buf, uint32(1+len(e)))
			buf = append(append(buf, 1), e...)
		default:
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(e)))
			buf = append(buf, e...)
		}
	}
	for _, e := range strs {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(e)))
		buf = append(buf, e...)
	}
	for _, u := range uuids {
		buf = binary.BigEndian.AppendUint32(buf, 16)
		buf = append(buf, u[:]...)
	}
	return buf, nil
}

// grow returns buf with room for size more bytes: buf itself when it has
// it, else the connection's own buffer holding buf's bytes.
func (c *arrayCodec) grow(buf []byte, size int) []byte {
	if cap(buf)-len(buf) >= size {
		return buf
	}
	own := *c.own
	if cap(own) == 0 || cap(buf) == 0 || unsafe.SliceData(own) != unsafe.SliceData(buf) {
		own = append(own[:0], buf...) // pgx's fresh buffer: the query's parameters so far
	} else {
		own = buf // already ours: an earlier parameter of the same query
	}
	own = slices.Grow(own, size)
	*c.own = own[:0]
	return own
}

// textArray encodes a []string in PostgreSQL's text array format exactly
// as pgx does, without its allocations per element.
type textArray struct{}

func (textArray) Encode(value any, buf []byte) ([]byte, error) {
	elems := value.([]string)
	if elems == nil {
		return nil, nil
	}
	buf = append(buf, '{')
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ',')
		}
		if e != "" && !strings.EqualFold(e, "null") && !strings.ContainsAny(e, " \t\n\r\v\f{},\"\\") {
			buf = append(buf, e...)
			continue
		}
		buf = append(buf, '"')
		for j := 0; j < len(e); j++ {
			if e[j] == '"' || e[j] == '\\' {
				buf = append(buf, '\\')
			}
			buf = append(buf, e[j])
		}
		buf = append(buf, '"')
	}
	return append(buf, '}'), nil
}

var errArrayTooLong = errors.New("an array parameter is longer than PostgreSQL's limit of 2 GB: send smaller batches")
