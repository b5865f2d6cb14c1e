package trainevents

import (
	"bytes"
	"testing"

	"github.com/tidwall/sjson"
)

// sjsonRewrite is what process did before appendRewrite: two sjson edits.
func sjsonRewrite(doc []byte, state string, fleeted bool) ([]byte, error) {
	p, err := sjson.SetBytesOptions(bytes.Clone(doc), "state", state, inPlace)
	if err == nil {
		p, err = sjson.SetBytesOptions(p, "metrics.flags.fleeted", fleeted, inPlace)
	}
	return p, err
}

// checkRewrite checks that appendRewrite makes of doc what sjson does,
// leaves doc alone and appends after what dst holds; edited says whether
// it must have been done by hand.
func checkRewrite(t *testing.T, doc []byte, state string, fleeted, edited bool) []byte {
	t.Helper()
	want, wantErr := sjsonRewrite(doc, state, fleeted)
	orig := bytes.Clone(doc)
	defer copy(doc, orig) // sjson may edit in place
	got, err := appendRewrite([]byte("prefix"), doc, state, fleeted)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("appendRewrite(%s): error %v, sjson's %v", orig, err, wantErr)
	}
	if err != nil {
		return nil
	}
	if !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
		t.Fatalf("appendRewrite(%s, %q, %v):\n got %s\nwant %s", doc, state, fleeted, got[6:], want)
	}
	if !bytes.Equal(doc, orig) && edited {
		t.Fatalf("appendRewrite changed its input %s", orig)
	}
	if _, ok := appendEdited(nil, orig, state, fleeted); ok != edited {
		t.Fatalf("edited by hand: %v, want %v, for %s", ok, edited, doc)
	}
	return got[6:]
}

// TestRewriteLikeSjson checks the TEXT rewrite against sjson on generated
// payloads and on payloads an earlier rewrite made, for every state and
// flag, all edited by hand.
func TestRewriteLikeSjson(t *testing.T) {
	g := newTestGenerator(21, fixedNow)
	b := new(batch)
	for round := range 20 {
		g.fill(b, 50)
		for i, e := range b.events {
			state := newStates[(round+i)%len(newStates)]
			once := checkRewrite(t, e.payload, state, i%2 == 0, true)
			for _, s := range newStates {
				checkRewrite(t, once, s, i%3 == 0, true)
				checkRewrite(t, once, s, i%3 != 0, true)
			}
		}
	}
}

// TestRewriteFallsBack checks documents the workload never writes: each
// comes out as sjson makes it, most through sjson itself.
func TestRewriteFallsBack(t *testing.T) {
	for _, tt := range oddDocs {
		for _, s := range []string{"A", "IN_PROGRESS"} {
			checkRewrite(t, []byte(tt.doc), s, true, tt.edited)
			checkRewrite(t, []byte(tt.doc), s, false, tt.edited)
		}
	}
	// A state that needs escaping is sjson's to encode.
	checkRewrite(t, []byte(`{"state":"NEW","metrics":{"flags":{"fleeted":true}}}`), `say "hi"`, true, false)
}

// oddDocs are documents the workload never writes, and whether
// appendRewrite edits them by hand.
var oddDocs = []struct {
	doc    string
	edited bool
}{
	{`{"state":"NEW","metrics":{"flags":{"fleeted":true}}}`, true},
	{`{"metrics":{"flags":{"onTrack":false,"fleeted":true}},"state":"NEW"}`, true},
	{`{"a":"x\"state\":\"y","state":"Q\\\\","metrics":{"b":[{"c":"]}"}],"flags":{"fleeted":false}}}`, false},
	{`{"a":"x\"state\":\"y","state":"Q","metrics":{"b":[{"c":"]}\\\\"}],"flags":{"fleeted":false}},"z":1.5E-3}`, true},
	{`{"state":"NEW","metrics":{"flags":{"fleeted":true}},"state":"OLD"}`, true},
	{`{ "state":"NEW","metrics":{"flags":{"fleeted":true}}}`, false},
	{`{"state": "NEW","metrics":{"flags":{"fleeted":true}}}`, false},
	{`{"st\u0061te":"X","state":"NEW","metrics":{"flags":{"fleeted":true}}}`, false},
	{`{"state":7,"metrics":{"flags":{"fleeted":true}}}`, false},
	{`{"state":"NEW","metrics":{"flags":{"fleeted":"yes"}}}`, false},
	{`{"state":"NEW","metrics":{"flags":{"fleeted":null}}}`, false},
	{`{"state":"NEW","metrics":{"flags":{}}}`, false},
	{`{"state":"NEW","metrics":{"flags":[true]}}`, false},
	{`{"state":"NEW","metrics":"none","metrics":{"flags":{"fleeted":true}}}`, false},
	{`{"state":"NEW","metrics":{"flags":{"x":1}},"metrics":{"flags":{"fleeted":true}}}`, false},
	{`{"state":"NEW"}`, false},
	{`{}`, false},
	{`{"state":"NEW","metrics":{"flags":{"fleeted":true}`, false},
}

// BenchmarkRewrite measures the TEXT rewrite of one generated payload.
func BenchmarkRewrite(b *testing.B) {
	g := newTestGenerator(22, fixedNow)
	batch := new(batch)
	g.fill(batch, 100)
	var dst []byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e := batch.events[i%100]
		var err error
		if dst, err = appendRewrite(dst[:0], e.payload, newStates[i%len(newStates)], i%2 == 0); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// FuzzRewrite checks that appendRewrite makes of any document what sjson
// makes of it, whichever way it goes.
func FuzzRewrite(f *testing.F) {
	g := newTestGenerator(23, fixedNow)
	for _, e := range g.generate(3) {
		f.Add(bytes.Clone(e.payload), "IN_PROGRESS", true)
	}
	for _, d := range oddDocs {
		f.Add([]byte(d.doc), "A", false)
	}
	f.Fuzz(func(t *testing.T, doc []byte, state string, fleeted bool) {
		want, wantErr := sjsonRewrite(doc, state, fleeted)
		got, err := appendRewrite(nil, bytes.Clone(doc), state, fleeted)
		if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("appendRewrite(%q, %q, %v) = %q, %v; sjson: %q, %v", doc, state, fleeted, got, err, want, wantErr)
		}
	})
}
