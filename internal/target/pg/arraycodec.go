package pg

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/jackc/pgx/v5/pgtype"
)

// bytesArrayCodec is the codec of a jsonb[] or text[] parameter that
// encodes a [][]byte (a batch of documents) in one pass into a buffer grown
// once to its final size. pgx's own array encoding appends element by
// element to a parameter buffer that it trims to 256 bytes after every
// query, so a 60 KB batch regrew it from 256 bytes each time, allocating
// about twice the batch and copying it as often (issue 18). The bytes on
// the wire are the same as pgx's; every other value, format and the
// scanning are the array type's own codec.
type bytesArrayCodec struct {
	pgtype.Codec        // the array type's own codec
	elemOID      uint32 // element type: pgtype.JSONBOID or pgtype.TextOID
}

// registerArrayCodecs puts bytesArrayCodec in front of the jsonb[] and
// text[] codecs of a connection's type map.
func registerArrayCodecs(m *pgtype.Map) {
	for _, a := range [...]struct{ oid, elem uint32 }{
		{pgtype.JSONBArrayOID, pgtype.JSONBOID},
		{pgtype.TextArrayOID, pgtype.TextOID},
	} {
		t, ok := m.TypeForOID(a.oid)
		if !ok {
			continue
		}
		if _, done := t.Codec.(*bytesArrayCodec); done {
			continue
		}
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: &bytesArrayCodec{Codec: t.Codec, elemOID: a.elem}})
	}
}

func (c *bytesArrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.([][]byte); ok && format == pgtype.BinaryFormatCode {
		return c
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// Encode writes value, a [][]byte, in PostgreSQL's binary array format
// exactly as pgx's array codec does: a nil slice is NULL, a nil element a
// NULL element, a jsonb element carries its version byte.
func (c *bytesArrayCodec) Encode(value any, buf []byte) ([]byte, error) {
	elems := value.([][]byte)
	if elems == nil {
		return nil, nil
	}
	if len(elems) > math.MaxInt32 {
		return nil, errArrayTooLong
	}
	var version []byte
	if c.elemOID == pgtype.JSONBOID {
		version = []byte{1}
	}
	size, null := 20, int32(0) // header: dimensions, null flag, element type, length, lower bound
	for _, e := range elems {
		size += 4
		if e == nil {
			null = 1
			continue
		}
		if len(version)+len(e) > math.MaxInt32 {
			return nil, errArrayTooLong
		}
		size += len(version) + len(e)
	}
	buf = slices.Grow(buf, size)
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, uint32(null))
	buf = binary.BigEndian.AppendUint32(buf, c.elemOID)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(elems)))
	buf = binary.BigEndian.AppendUint32(buf, 1)
	for _, e := range elems {
		if e == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32) // -1: NULL
			continue
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(version)+len(e)))
		buf = append(append(buf, version...), e...)
	}
	return buf, nil
}

var errArrayTooLong = errors.New("an array parameter is longer than PostgreSQL's limit of 2 GB: send smaller batches")
