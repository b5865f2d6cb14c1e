package pg

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestBytesArrayCodec: jsonb[] and text[] parameters from [][]byte are
// the bytes pgx's own array codec sends (nil, empty, NULL elements, a
// batch), and a 60 KB batch encoded into pgx's 256-byte parameter buffer
// allocates its size once rather than regrowing the buffer.
func TestBytesArrayCodec(t *testing.T) {
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
	if got, own := perRun(ours), perRun(pgxOwn); got > 1.2*float64(size) {
		t.Errorf("encoding a %d-byte batch allocated %.0f bytes (pgx's own codec: %.0f); want one buffer of about its size", size, got, own)
	}
}
