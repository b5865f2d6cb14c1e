package pg

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestArrayCodec: jsonb[] and text[] parameters from [][]byte and uuid[]
// from [][16]byte are the bytes pgx's own array codec sends (nil, empty,
// NULL elements, a batch), also when a query has several; and a 60 KB
// batch encoded into pgx's 256-byte parameter buffer allocates nothing
// once the connection's own buffer has grown.
func TestArrayCodec(t *testing.T) {
	doc := bytes.Repeat([]byte(`{"k":"value"}`), 90) // about 1.2 KB, like a train-events payload
	batch := make([][]byte, 55)
	for i := range batch {
		batch[i] = doc
	}
	cases := map[string][][]byte{
		"nil":          nil,
		"empty":        {},
		"null element": {[]byte(`{"a":1}`), nil, []byte(`[]`)},
		"batch":        batch,
	}
	pgxOwn, ours := pgtype.NewMap(), pgtype.NewMap()
	registerArrayCodecs(ours)
	registerArrayCodecs(ours) // twice, as a pool's AfterConnect may: no double wrapping
	for _, oid := range []uint32{pgtype.JSONBArrayOID, pgtype.TextArrayOID} {
		for name, v := range cases {
			want, err := pgxOwn.Encode(oid, pgtype.BinaryFormatCode, v, []byte("prefix"))
			if err != nil {
				t.Fatalf("%d %s: pgx: %v", oid, name, err)
			}
			got, err := ours.Encode(oid, pgtype.BinaryFormatCode, v, []byte("prefix"))
			if err != nil {
				t.Fatalf("%d %s: %v", oid, name, err)
			}
			if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("%d %s: encoded\n%q\nwant\n%q", oid, name, got, want)
			}
		}
		// Scanning and other Go types are the array codec's own.
		var back [][]byte
		enc, _ := ours.Encode(oid, pgtype.BinaryFormatCode, cases["null element"], nil)
		if err := ours.Scan(oid, pgtype.BinaryFormatCode, enc, &back); err != nil || len(back) != 3 || back[1] != nil {
			t.Errorf("%d: scanned back %q, %v", oid, back, err)
		}
		if _, err := ours.Encode(oid, pgtype.BinaryFormatCode, []string{"x"}, nil); err != nil {
			t.Errorf("%d: []string: %v", oid, err)
		}
	}
	ids := [][16]byte{{1, 2, 3}, {15: 9}, {}}
	for name, a := range map[string]struct {
		oid uint32
		v   any
	}{
		"uuid nil": {pgtype.UUIDArrayOID, [][16]byte(nil)}, "uuid empty": {pgtype.UUIDArrayOID, [][16]byte{}}, "uuids": {pgtype.UUIDArrayOID, ids},
		"text nil": {pgtype.TextArrayOID, []string(nil)}, "text empty": {pgtype.TextArrayOID, []string{}}, "strings": {pgtype.TextArrayOID, []string{"PENDING", "", "é"}},
	} {
		want, _ := pgxOwn.Encode(a.oid, pgtype.BinaryFormatCode, a.v, nil)
		got, err := ours.Encode(a.oid, pgtype.BinaryFormatCode, a.v, nil)
		if err != nil || !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("%s: encoded %q, %v; want %q", name, got, err, want)
		}
	}

	// Text format, as pgx sends a []string for an array type it does not
	// know (an enum's): TypeForValue finds text[].
	const enumArray = 99999
	for _, v := range [][]string{nil, {}, {"ROUTE_AUTHORIZATION", "SIGNAL_CLEAR"}, {"", "null", "NULL", "a b", `q"uo\te`, "{x}", "a,b", "tab\t", "é"}} {
		want, errWant := pgxOwn.Encode(enumArray, pgtype.TextFormatCode, v, []byte("p"))
		got, err := ours.Encode(enumArray, pgtype.TextFormatCode, v, []byte("p"))
		if err != nil || errWant != nil || !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("text %q: encoded %q, %v; want %q, %v", v, got, err, want, errWant)
		}
	}
	var types any = []string{"ROUTE_AUTHORIZATION", "SIGNAL_CLEAR", "POWER_OUTAGE"}
	room := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(20, func() { ours.Encode(enumArray, pgtype.TextFormatCode, types, room) }); n != 0 {
		t.Errorf("a []string in text format: %.0f allocations, want none (pgx: %.0f)", n,
			testing.AllocsPerRun(20, func() { pgxOwn.Encode(enumArray, pgtype.TextFormatCode, types, room) }))
	}

	// One query's parameters, as pgx appends them: each encoding stays
	// intact while the next ones grow the buffer.
	var want [][]byte
	args := []struct {
		oid uint32
		v   any
	}{{pgtype.UUIDArrayOID, ids}, {pgtype.JSONBArrayOID, batch}, {pgtype.TextArrayOID, []string{"a", "b"}}, {pgtype.TextArrayOID, batch}, {pgtype.JSONBArrayOID, batch[:2]}}
	for _, a := range args {
		w, _ := pgxOwn.Encode(a.oid, pgtype.BinaryFormatCode, a.v, nil)
		want = append(want, w)
	}
	for query := range 2 {
		buf := make([]byte, 0, 256)
		var params [][]byte
		for _, a := range args {
			pos := len(buf)
			var err error
			if buf, err = ours.Encode(a.oid, pgtype.BinaryFormatCode, a.v, buf); err != nil {
				t.Fatal(err)
			}
			params = append(params, buf[pos:])
		}
		for i := range params {
			if !bytes.Equal(params[i], want[i]) {
				t.Errorf("query %d, parameter %d: changed by the parameters after it", query, i)
			}
		}
	}

	size := 0
	for _, d := range batch {
		size += len(d)
	}
	perRun := func(m *pgtype.Map) float64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 20 {
			if _, err := m.Encode(pgtype.JSONBArrayOID, pgtype.BinaryFormatCode, batch, make([]byte, 0, 256)); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / 20
	}
	if got, own := perRun(ours), perRun(pgxOwn); got > 0.1*float64(size) {
		t.Errorf("encoding a %d-byte batch allocated %.0f bytes (pgx's own codec: %.0f); want the connection's buffer reused", size, got, own)
	}
}
