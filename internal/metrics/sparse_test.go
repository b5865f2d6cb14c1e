package metrics

import (
	"runtime"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestSparseIsDense: a recorder's histograms (sparse) hold each sample at
// the index hdrhistogram-go's dense counts hold it, and answer every
// figure as a dense Hist of the same samples does, over the whole range.
func TestSparseIsDense(t *testing.T) {
	full := hdrhistogram.New(minMicros, maxMicros, sigDigits)
	if n := len(full.Export().Counts); n != countsLen {
		t.Fatalf("hdrhistogram-go's geometry has %d counts, sparse %d", n, countsLen)
	}
	for _, v := range []int64{1, 2, 1000, 2047, 2048, 2049, 4095, 4096, 123456, maxMicros - 1, maxMicros} {
		d := newHDR()
		_ = d.RecordValue(v)
		if c := countsOf(d); len(c)-1 != indexOf(v) {
			t.Errorf("indexOf(%d) = %d, hdrhistogram-go counts it at %d", v, indexOf(v), len(c)-1)
		}
		release(d)
	}
	r := NewRecorder([]string{"op"})
	dense := NewHist()
	for v, client := time.Microsecond, 0; v < 2*time.Hour; v, client = v*17/16+time.Microsecond, client+1 {
		r.Record(0, client, v)
		r.Record(0, client+1, v/3)
		dense.Record(v)
		dense.Record(v / 3)
	}
	iv := r.Tick()[0]
	tot := r.Total()[0]
	bounds := []time.Duration{time.Microsecond, time.Millisecond, 1500 * time.Microsecond, time.Second, time.Hour}
	for name, h := range map[string]*Hist{"interval": iv, "total": tot} {
		if h.s == nil {
			t.Fatalf("%s: the recorder's histogram is not sparse", name)
		}
		if got, want := h.Summary(), dense.Summary(); got != want {
			t.Errorf("%s: Summary %+v, dense %+v", name, got, want)
		}
		for _, q := range []float64{0, 1, 50, 99.9, 100} {
			if got, want := h.ValueAt(q), dense.ValueAt(q); got != want {
				t.Errorf("%s: ValueAt(%v) %v, dense %v", name, q, got, want)
			}
		}
		if got, want := h.StdDev(), dense.StdDev(); got != want {
			t.Errorf("%s: StdDev %v, dense %v", name, got, want)
		}
		if got, want := h.CountsAtOrBelow(bounds), dense.CountsAtOrBelow(bounds); !equalInts(got, want) {
			t.Errorf("%s: CountsAtOrBelow %v, dense %v", name, got, want)
		}
		got, _ := h.Encode()
		want, _ := dense.Encode()
		if got != want {
			t.Errorf("%s: Encode differs from the dense histogram's", name)
		}
	}
	m := NewHist()
	m.Merge(tot)
	m.Merge(iv)
	tot.Merge(tot)
	if m.Summary() != tot.Summary() || tot.Count() != 2*dense.Count() {
		t.Errorf("merged: %+v and %+v, want %d samples", m.Summary(), tot.Summary(), 2*dense.Count())
	}
	if err := iv.Compact(); err != nil || iv.s != nil || iv.Summary() != dense.Summary() {
		t.Errorf("a compacted recorder's histogram: %v, sparse kept %v, %+v", err, iv.s != nil, iv.Summary())
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRecorderMemoryPerOp: a recorder of a script's many ops, each with a
// few latencies close together (a `\set` of microseconds, a statement of
// milliseconds) from two clients, allocates a few KB per op over its
// samples, a tick, its totals and their summaries: a dense histogram is
// 190 KB, and the recorder made two or more of them per op (issue 40:
// 42 steps held 14 MB).
func TestRecorderMemoryPerOp(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const ops = 45
	names := make([]string, ops)
	for i := range names {
		names[i] = "step"
	}
	work := func() {
		r := NewRecorder(names)
		for op := range ops {
			base := time.Duration(3+op%3) * time.Microsecond // a \set
			if op%2 == 1 {
				base = time.Duration(op) * 100 * time.Microsecond // a statement
			}
			for i := range 40 {
				r.Record(op, i, base+time.Duration(i%5)*base/50)
			}
		}
		for _, h := range r.Tick() {
			_ = h.Summary()
			_ = h.Compact()
		}
		for _, h := range r.Total() {
			_ = h.Summary()
		}
	}
	work() // the scratch dense histogram Summary reads through, made once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	work()
	runtime.ReadMemStats(&after)
	perHist := int64(hdrhistogram.New(minMicros, maxMicros, sigDigits).ByteSize())
	perOp := int64(after.TotalAlloc-before.TotalAlloc) / ops
	t.Logf("%.1f KB allocated per op; a dense histogram is %.1f KB", float64(perOp)/1024, float64(perHist)/1024)
	if perOp > perHist/8 {
		t.Errorf("%d bytes allocated per op, want at most %d (an eighth of one dense histogram)", perOp, perHist/8)
	}
}
