package metrics

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

const us = time.Microsecond

// within reports whether got is within HDR precision (0.1%) of want.
func within(got, want float64) bool {
	return math.Abs(got-want) <= 0.001*math.Abs(want)
}

func histOf(ds ...time.Duration) *Hist {
	h := NewHist()
	for _, d := range ds {
		h.Record(d)
	}
	return h
}

func uniform(from, to int) *Hist {
	h := NewHist()
	for i := from; i <= to; i++ {
		h.Record(time.Duration(i) * us)
	}
	return h
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name string
		h    *Hist
		want Summary // exact values, in ms
	}{
		{"uniform 1..10000us", uniform(1, 10000),
			Summary{Count: 10000, Mean: 5.0005, P50: 5, P90: 9, P95: 9.5, P99: 9.9, Max: 10}},
		{"constant 1.5ms", histOf(1500*us, 1500*us, 1500*us),
			Summary{Count: 3, Mean: 1.5, P50: 1.5, P90: 1.5, P95: 1.5, P99: 1.5, Max: 1.5}},
		{"below 1us records as 1us", histOf(0, 500*time.Nanosecond, -time.Second),
			Summary{Count: 3, Mean: 0.001, P50: 0.001, P90: 0.001, P95: 0.001, P99: 0.001, Max: 0.001}},
		{"one slow outlier", histOf(append(make([]time.Duration, 99), 2*time.Second)...),
			Summary{Count: 100, Mean: (99*0.001 + 2000) / 100, P50: 0.001, P90: 0.001, P95: 0.001, P99: 0.001, Max: 2000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.h.Summary()
			if got.Count != tt.want.Count {
				t.Errorf("Count = %d, want %d", got.Count, tt.want.Count)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"Mean", got.Mean, tt.want.Mean},
				{"P50", got.P50, tt.want.P50},
				{"P90", got.P90, tt.want.P90},
				{"P95", got.P95, tt.want.P95},
				{"P99", got.P99, tt.want.P99},
				{"Max", got.Max, tt.want.Max},
			} {
				if !within(f.got, f.want) {
					t.Errorf("%s = %v ms, want %v ms within 0.1%%", f.name, f.got, f.want)
				}
			}
		})
	}
}

func TestSummaryEmpty(t *testing.T) {
	for _, h := range []*Hist{NewHist(), {}, uniform(1, 100)} {
		h.Reset()
		s := h.Summary()
		if s != (Summary{}) {
			t.Errorf("Summary of empty = %+v, want zeros", s)
		}
		for _, v := range []float64{s.Mean, s.P50, s.P90, s.P95, s.P99, s.Max} {
			if math.IsNaN(v) {
				t.Errorf("Summary of empty has NaN: %+v", s)
			}
		}
		if h.Count() != 0 || h.ValueAt(99) != 0 {
			t.Errorf("empty: Count = %d, ValueAt(99) = %v, want 0, 0", h.Count(), h.ValueAt(99))
		}
	}
}

func TestValueAt(t *testing.T) {
	h := uniform(1, 10000)
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0, 1 * us}, {-5, 1 * us}, {1, 100 * us}, {50, 5000 * us}, {99.9, 9990 * us}, {100, 10000 * us}, {150, 10000 * us},
	}
	for _, tt := range tests {
		got := h.ValueAt(tt.q)
		if got < tt.want || !within(float64(got), float64(tt.want)) {
			t.Errorf("ValueAt(%v) = %v, want %v (or up to 0.1%% above)", tt.q, got, tt.want)
		}
	}
}

// assertSame fails unless a and b hold the same samples as far as counts,
// percentiles and summary can tell.
func assertSame(t *testing.T, a, b *Hist) {
	t.Helper()
	if a.Count() != b.Count() {
		t.Fatalf("Count = %d, want %d", a.Count(), b.Count())
	}
	for _, q := range []float64{0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100} {
		if av, bv := a.ValueAt(q), b.ValueAt(q); av != bv {
			t.Errorf("ValueAt(%v) = %v, want %v", q, av, bv)
		}
	}
	if as, bs := a.Summary(), b.Summary(); as != bs {
		t.Errorf("Summary = %+v, want %+v", as, bs)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		h    *Hist
	}{
		{"empty", NewHist()},
		{"zero value", &Hist{}},
		{"uniform", uniform(1, 10000)},
		{"wide", histOf(1*us, 1*time.Millisecond, 1*time.Second, time.Minute, 2*time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.h.Encode()
			if err != nil {
				t.Fatal(err)
			}
			d, err := DecodeHist(s)
			if err != nil {
				t.Fatalf("DecodeHist(Encode()) = %v", err)
			}
			assertSame(t, d, tt.h)
			s2, err := d.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if s2 != s {
				t.Errorf("re-encoding differs:\n%s\n%s", s2, s)
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	type result struct {
		Op      string `json:"op"`
		Latency *Hist  `json:"latency"`
		Missing *Hist  `json:"missing"`
	}
	in := result{Op: "add", Latency: uniform(100, 5000)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"latency":"HIST`) || !strings.Contains(string(b), `"missing":null`) {
		t.Errorf("unexpected JSON: %s", b)
	}
	var out result
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Op != "add" || out.Missing != nil || out.Latency == nil {
		t.Fatalf("decoded %+v", out)
	}
	assertSame(t, out.Latency, in.Latency)

	for _, bad := range []string{`{"latency":42}`, `{"latency":"garbage"}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("Unmarshal(%s) succeeded, want error", bad)
		}
	}
}

// encodeHDR encodes h in the V2 compressed format.
func encodeHDR(t testing.TB, h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDecodeHistErrors(t *testing.T) {
	valid, err := uniform(1, 1000).Encode()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(valid)
	tests := []struct {
		name, in, wantErr string
	}{
		{"garbage", "garbage", "not base64"},
		{"empty", "", "too short"},
		{"base64 junk", base64.StdEncoding.EncodeToString([]byte("0123456789abcdef")), "not a compressed histogram"},
		{"truncated", base64.StdEncoding.EncodeToString(raw[:20]), "histogram"},
		{"corrupted payload", base64.StdEncoding.EncodeToString(append(raw[:len(raw)-4:len(raw)-4], 1, 2, 3, 4)), "decode histogram"},
		{"other geometry", encodeHDR(t, hdrhistogram.New(1, 1000, 2)), "geometry 1..1000/2"},
		{"huge geometry", encodeHDR(t, hdrhistogram.New(1, math.MaxInt64, 5)), "geometry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := DecodeHist(tt.in)
			if err == nil {
				t.Fatalf("DecodeHist = %v, nil; want error", h)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "metrics: decode histogram: ") {
				t.Errorf("error %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	var a, b, all []time.Duration
	for i := 1; i <= 5000; i++ {
		a = append(a, time.Duration(i*i%7919)*us)
		b = append(b, time.Duration(i)*time.Millisecond/7)
	}
	b = append(b, 3*time.Hour) // clamped on both sides
	all = append(append(all, a...), b...)

	ha, hb, hall := histOf(a...), histOf(b...), histOf(all...)
	ha.Merge(hb)
	assertSame(t, ha, hall)
	if ha.Count() != int64(len(all)) {
		t.Errorf("Count = %d, want %d", ha.Count(), len(all))
	}

	// Merging decoded histograms is exact too.
	sa, _ := histOf(a...).Encode()
	sb, _ := histOf(b...).Encode()
	da, err := DecodeHist(sa)
	if err != nil {
		t.Fatal(err)
	}
	db, err := DecodeHist(sb)
	if err != nil {
		t.Fatal(err)
	}
	da.Merge(db)
	assertSame(t, da, hall)

	// Into a zero Hist, from nil or empty, and into itself.
	var z Hist
	z.Merge(hall)
	z.Merge(nil)
	z.Merge(NewHist())
	assertSame(t, &z, hall)
	z.Merge(&z)
	double := histOf(append(append([]time.Duration(nil), all...), all...)...)
	assertSame(t, &z, double)
}

func counts(hs []*Hist) []int64 {
	c := make([]int64, len(hs))
	for i, h := range hs {
		c[i] = h.Count()
	}
	return c
}

func TestRecorder(t *testing.T) {
	ops := []string{"add", "process", "archive"}
	// Per goroutine: op i records perOp[i] samples of value[i].
	perOp := []int64{400, 200, 100}
	value := []time.Duration{100 * us, time.Millisecond, 10 * time.Millisecond}
	const clients = 64

	r := NewRecorder(ops)
	if got := r.Ops(); strings.Join(got, ",") != "add,process,archive" {
		t.Fatalf("Ops = %v", got)
	}
	r.Ops()[0] = "changed"
	if r.Ops()[0] != "add" {
		t.Fatal("Ops returned the Recorder's own slice")
	}

	record := func() {
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for op := range ops {
					for range perOp[op] {
						r.Record(op, c, value[op])
					}
				}
			}()
		}
		wg.Wait()
	}

	// Phase 1: tick concurrently with the recording; the intervals add up.
	sum := make([]*Hist, len(ops))
	for i := range sum {
		sum[i] = NewHist()
	}
	stop := make(chan struct{})
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for i, h := range r.Tick() {
				sum[i].Merge(h)
			}
			_ = r.Total()
			time.Sleep(time.Millisecond)
		}
	}()
	record()
	close(stop)
	<-ticked
	for i, h := range r.Tick() {
		sum[i].Merge(h)
	}
	for op := range ops {
		if want := clients * perOp[op]; sum[op].Count() != want {
			t.Errorf("phase 1 %s: intervals count %d, want %d", ops[op], sum[op].Count(), want)
		}
		if got := sum[op].ValueAt(50); !within(float64(got), float64(value[op])) {
			t.Errorf("phase 1 %s: p50 %v, want %v", ops[op], got, value[op])
		}
	}

	// A Tick without records returns empty histograms.
	if got := counts(r.Tick()); got[0] != 0 || got[1] != 0 || got[2] != 0 {
		t.Errorf("idle Tick counts = %v, want zeros", got)
	}

	// Phase 2: a Tick returns exactly what was recorded since the last one.
	record()
	iv := r.Tick()
	for op := range ops {
		if want := clients * perOp[op]; iv[op].Count() != want {
			t.Errorf("phase 2 %s: Tick count %d, want %d", ops[op], iv[op].Count(), want)
		}
		sum[op].Merge(iv[op])
	}

	total := r.Total()
	for op := range ops {
		if want := 2 * clients * perOp[op]; total[op].Count() != want {
			t.Errorf("%s: Total count %d, want %d", ops[op], total[op].Count(), want)
		}
		assertSame(t, total[op], sum[op])
	}

	// Total returns copies.
	total[0].Reset()
	if r.Total()[0].Count() == 0 {
		t.Error("Total returned the Recorder's own histogram")
	}
	if r.Clamped() != 0 {
		t.Errorf("Clamped = %d, want 0", r.Clamped())
	}
}

func TestRecorderClamping(t *testing.T) {
	tests := []struct {
		name        string
		d           time.Duration
		want        time.Duration
		wantClamped int64
	}{
		{"2 hours clamps to 1 hour", 2 * time.Hour, time.Hour, 1},
		{"just over 1 hour clamps", time.Hour + time.Millisecond, time.Hour, 1},
		{"1 hour is in range", time.Hour, time.Hour, 0},
		{"0 records as 1us", 0, us, 0},
		{"999ns records as 1us", 999 * time.Nanosecond, us, 0},
		{"negative records as 1us", -time.Second, us, 0},
		{"1ms", time.Millisecond, time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder([]string{"op"})
			r.Record(0, 5, tt.d)
			if r.Clamped() != tt.wantClamped {
				t.Errorf("Clamped = %d, want %d", r.Clamped(), tt.wantClamped)
			}
			h := r.Tick()[0]
			if h.Count() != 1 {
				t.Fatalf("Count = %d, want 1 (a clamped sample is kept)", h.Count())
			}
			if got := h.ValueAt(100); got < tt.want || !within(float64(got), float64(tt.want)) {
				t.Errorf("recorded %v, want %v (or up to 0.1%% above)", got, tt.want)
			}
		})
	}
}

func TestRecorderShardArgument(t *testing.T) {
	r := NewRecorder([]string{"a", "b"})
	for _, s := range []int{0, 1, 7, 8, 9999, math.MaxInt, -1} {
		r.Record(1, s, time.Millisecond)
	}
	if got := counts(r.Tick()); got[0] != 0 || got[1] != 7 {
		t.Errorf("counts = %v, want [0 7]", got)
	}
	if sz := unsafe.Sizeof(shard{}); sz != 128 {
		t.Errorf("shard is %d bytes, want 128 (one per cache line pair)", sz)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	r := NewRecorder([]string{"add", "process"})
	for _, d := range []time.Duration{0, 1500 * us, 2 * time.Hour} {
		if n := testing.AllocsPerRun(1000, func() { r.Record(1, 3, d) }); n != 0 {
			t.Errorf("Record(%v) allocates %v times, want 0", d, n)
		}
	}
	h := NewHist()
	if n := testing.AllocsPerRun(1000, func() { h.Record(1500 * us) }); n != 0 {
		t.Errorf("Hist.Record allocates %v times, want 0", n)
	}
}

func FuzzDecodeHist(f *testing.F) {
	valid, err := uniform(1, 10000).Encode()
	if err != nil {
		f.Fatal(err)
	}
	empty, _ := NewHist().Encode()
	f.Add(valid)
	f.Add(empty)
	f.Add(valid[:len(valid)/2])
	f.Add(encodeHDR(f, hdrhistogram.New(1, 1000, 2)))
	f.Add("")
	f.Add("garbage")
	f.Add("HISTFAAAACh4nJNpmSzMwMDAzAABMBrEZAQTAA==")
	f.Add(base64.StdEncoding.EncodeToString([]byte{0x1c, 0x84, 0x93, 0x14, 0, 0, 0, 4, 1, 2, 3, 4}))
	f.Fuzz(func(t *testing.T, s string) {
		h, err := DecodeHist(s)
		if err != nil {
			return
		}
		_ = h.Summary()
		s2, err := h.Encode()
		if err != nil {
			t.Fatalf("re-encoding a decoded histogram: %v", err)
		}
		h2, err := DecodeHist(s2)
		if err != nil {
			t.Fatalf("decoding a re-encoded histogram: %v", err)
		}
		if h2.Count() != h.Count() || h2.ValueAt(99) != h.ValueAt(99) {
			t.Fatalf("round trip changed the histogram: %d/%v, want %d/%v", h2.Count(), h2.ValueAt(99), h.Count(), h.ValueAt(99))
		}
	})
}

func BenchmarkRecorderRecord(b *testing.B) {
	r := NewRecorder([]string{"add", "process", "archive", "cycle"})
	var ids atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		id := int(ids.Add(1))
		d := time.Duration(id) * 137 * us
		i := 0
		for pb.Next() {
			r.Record(i&3, id, d+time.Duration(i&1023)*us)
			i++
		}
	})
}

func BenchmarkRecorderTick(b *testing.B) {
	r := NewRecorder([]string{"add", "process", "archive", "cycle"})
	b.ReportAllocs()
	for b.Loop() {
		for i := range 1000 {
			r.Record(i&3, i, time.Duration(i)*us)
		}
		_ = r.Tick()
	}
}

// BenchmarkNewRecorder reports, as B/op, the memory a Recorder for 4 ops holds.
func BenchmarkNewRecorder(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = NewRecorder([]string{"add", "process", "archive", "cycle"})
	}
}

func TestCountsAtOrBelow(t *testing.T) {
	bounds := []time.Duration{500 * us, time.Millisecond, 2500 * us, 30 * time.Second}
	cases := []struct {
		name   string
		values []time.Duration
		want   []int64
	}{
		{"empty", nil, []int64{0, 0, 0, 0}},
		{"on the bounds count under them", []time.Duration{500 * us, time.Millisecond, 2500 * us}, []int64{1, 2, 3, 3}},
		{"just above a bound does not", []time.Duration{501 * us, 1001 * us, 2504 * us}, []int64{0, 1, 2, 3}},
		{"beyond the last bound", []time.Duration{time.Minute, 10 * us}, []int64{1, 1, 1, 1}},
		{"many", []time.Duration{100 * us, 100 * us, 700 * us, 2 * time.Millisecond, 3 * time.Second, 40 * time.Second}, []int64{2, 3, 4, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := NewHist()
			for _, v := range c.values {
				h.Record(v)
			}
			got := h.CountsAtOrBelow(bounds)
			if !slices.Equal(got, c.want) {
				t.Errorf("CountsAtOrBelow = %v, want %v", got, c.want)
			}
		})
	}
}

// TestCountsAtOrBelowMatchesDistribution checks the index arithmetic of
// CountsAtOrBelow against hdrhistogram's own bucket boundaries, over the
// whole range.
func TestCountsAtOrBelowMatchesDistribution(t *testing.T) {
	h := NewHist()
	v := time.Microsecond
	for v < time.Hour {
		h.Record(v)
		h.Record(v + v/3)
		v = v*21/16 + time.Microsecond
	}
	h.Record(time.Hour)
	var bounds []time.Duration
	for b := time.Microsecond; b <= time.Hour; b = b*3/2 + time.Microsecond {
		bounds = append(bounds, b, b+1*time.Microsecond)
	}
	got := h.CountsAtOrBelow(bounds)
	for i, b := range bounds {
		var want int64
		for _, bar := range h.h.Distribution() {
			if bar.From <= int64(b/time.Microsecond) {
				want += bar.Count
			}
		}
		if got[i] != want {
			t.Fatalf("at %s: %d, want %d", b, got[i], want)
		}
	}
	if n := h.CountsAtOrBelow([]time.Duration{time.Hour}); n[0] != h.Count() {
		t.Errorf("%d at or below 1h, want all %d", n[0], h.Count())
	}
}

// TestCompact: a compacted histogram keeps its samples, encodes to the
// same text without decoding, and is decoded again on use.
func TestCompact(t *testing.T) {
	h := uniform(1, 5000)
	want, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sum := h.Summary()
	if err := h.Compact(); err != nil {
		t.Fatal(err)
	}
	if h.h != nil || h.rest == nil {
		t.Fatal("Compact kept the counts")
	}
	if got, err := h.Encode(); err != nil || got != want {
		t.Errorf("Encode of a compacted histogram = %.20q, %v; want %.20q", got, err, want)
	}
	if h.h != nil {
		t.Error("Encode decoded the compacted histogram")
	}
	if got := h.Summary(); got != sum {
		t.Errorf("Summary after Compact = %+v, want %+v", got, sum)
	}
	c := uniform(1, 10)
	c.Compact()
	h.Merge(c)
	if h.Count() != 5010 {
		t.Errorf("merging a compacted histogram: count %d, want 5010", h.Count())
	}
	if c.h != nil {
		t.Error("Merge decoded its compacted source for good")
	}
	var zero Hist
	if err := zero.Compact(); err != nil || zero.Count() != 0 {
		t.Errorf("Compact of a zero Hist = %v, count %d", err, zero.Count())
	}
}

// TestCompactCompressesNothing: putting histograms at rest (a dense
// one, a recorder's sparse one) makes no zlib compressor (0.8 MB, and its
// Reset clears 640 KB: issue 40, a run that writes no JSON); encoding one
// for output makes it and writes what encoding before Compact wrote.
func TestCompactCompressesNothing(t *testing.T) {
	dense := uniform(1, 5000)
	want, _ := dense.Encode()
	rec := NewRecorder([]string{"op"})
	for us := range 300 {
		rec.Record(0, 0, time.Duration(us+1)*37*time.Microsecond)
	}
	sp := rec.Tick()[0]
	spWant, _ := sp.Encode()
	codec.mu.Lock()
	codec.zw = nil
	codec.mu.Unlock()
	dense.Compact()
	sp.Compact()
	codec.mu.Lock()
	made := codec.zw != nil
	codec.mu.Unlock()
	if made {
		t.Fatal("Compact made the zlib compressor")
	}
	if got, _ := dense.Encode(); got != want {
		t.Errorf("Encode after Compact = %.20q, want %.20q", got, want)
	}
	if got, _ := sp.Encode(); got != spWant {
		t.Errorf("a recorder's histogram: Encode after Compact = %.20q, want %.20q", got, spWant)
	}
	if codec.zw == nil {
		t.Error("Encode made no compressor")
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2, 10}
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{5}, 5}, {[]float64{3, 1, 2}, 2}, {xs, 2.5}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if xs[0] != 3 || xs[3] != 10 {
		t.Errorf("Median sorted its argument: %v", xs)
	}
}

// TestSummaryIsHdrs: Summary reads Max as the 100th percentile, in the
// scan that finds the others (issue 31); Max and Mean are exactly
// hdrhistogram's, for values across the whole range (every bucket) and up
// to the histogram's ceiling.
func TestSummaryIsHdrs(t *testing.T) {
	h := NewHist()
	check := func(after string) {
		t.Helper()
		s := h.Summary()
		if want := float64(h.h.Max()) / 1000; s.Max != want {
			t.Fatalf("after %s: Max %v ms, hdrhistogram's %v ms", after, s.Max, want)
		}
		if want := h.h.Mean() / 1000; s.Mean != want {
			t.Fatalf("after %s: Mean %v ms, hdrhistogram's %v ms", after, s.Mean, want)
		}
	}
	for v := time.Microsecond; v < time.Hour; v = v*21/16 + time.Microsecond {
		h.Record(v)
		h.Record(v / 3)
		check(v.String())
	}
	h.Record(2 * time.Hour) // clamped to the ceiling
	check("the ceiling")
}

// TestNewRecorderIsSmall: a recorder makes the histogram of a shard when
// the shard takes its first sample (issue 31: at few clients most never
// do), so a new one allocates about one histogram per op (the totals), not
// one per shard; its ticks and totals are those of eager shards.
func TestNewRecorderIsSmall(t *testing.T) {
	ops := []string{"a", "b", "c"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewRecorder(ops)
	runtime.ReadMemStats(&after)
	perHist := int64(hdrhistogram.New(minMicros, maxMicros, sigDigits).ByteSize())
	if got := int64(after.TotalAlloc - before.TotalAlloc); got > int64(len(ops)+1)*perHist {
		t.Errorf("NewRecorder(3 ops) allocated %d bytes, want at most %d (a histogram per op)", got, int64(len(ops)+1)*perHist)
	}
	r.Record(1, 5, 2*time.Millisecond)
	r.Record(1, 6, 3*time.Millisecond)
	iv := r.Tick()
	if iv[0].Count() != 0 || iv[1].Count() != 2 || iv[2].Count() != 0 {
		t.Errorf("interval counts %d %d %d, want 0 2 0", iv[0].Count(), iv[1].Count(), iv[2].Count())
	}
	r.Record(1, 5, time.Millisecond)
	r.Tick()
	if tot := r.Total(); tot[1].Count() != 3 || tot[1].Summary().Max < 3 {
		t.Errorf("total %+v, want 3 samples up to 3 ms", tot[1].Summary())
	}
}

// TestShardsPerProc: samples of one op from eight clients on a recorder
// made at GOMAXPROCS 2 fill two shard histograms, not eight (each is 190
// KB: eight per op were most of a TPC-C run's live heap on 2 cores), and
// none is lost.
func TestShardsPerProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	r := NewRecorder([]string{"a"})
	for client := range 8 {
		r.Record(0, client, time.Millisecond)
	}
	made := 0
	for i := range r.shards {
		if r.shards[i].hs[0] != nil {
			made++
		}
	}
	if made != 2 {
		t.Errorf("%d shard histograms made for 8 clients at GOMAXPROCS 2, want 2", made)
	}
	if iv := r.Tick(); iv[0].Count() != 8 {
		t.Errorf("%d samples in the interval, want 8", iv[0].Count())
	}
	if shardsFor(1) != 1 || shardsFor(64) != maxShards {
		t.Errorf("shardsFor(1) %d, shardsFor(64) %d; want 1 and %d", shardsFor(1), shardsFor(64), maxShards)
	}
}

// TestRecorderFinal: Final returns what Tick then Total return, the same
// totals and the last interval's counts, without copying the cumulative
// counts again: it allocates less than Tick and Total by at least those
// copies.
func TestRecorderFinal(t *testing.T) {
	ops := make([]string, 45)
	for i := range ops {
		ops[i] = fmt.Sprint("op", i)
	}
	feed := func(r *Recorder) {
		for round := range 2 {
			for op := range ops {
				for c := range 4 {
					r.Record(op, c, time.Duration(100+op*37+round*1000+c)*us)
				}
			}
			if round == 0 {
				r.Tick()
			}
		}
	}
	a, b := NewRecorder(ops), NewRecorder(ops)
	feed(a)
	feed(b)
	allocated := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	var lastA, totA, totB []*Hist
	var lastB []int64
	withTotal := allocated(func() { lastA = a.Tick(); totA = a.Total() })
	final := allocated(func() { lastB, totB = b.Final() })
	for op := range ops {
		if x, y := totA[op].Summary(), totB[op].Summary(); x != y {
			t.Fatalf("op %d: Final %+v, Tick and Total %+v", op, y, x)
		}
		if lastA[op].Count() != lastB[op] {
			t.Fatalf("op %d: Final counts %d in the last interval, Tick %d", op, lastB[op], lastA[op].Count())
		}
	}
	if totB[0].Summary().Count != 8 || lastB[0] != 4 {
		t.Fatalf("op 0: %d in all and %d in the last interval, want 8 and 4", totB[0].Summary().Count, lastB[0])
	}
	if perOp := float64(withTotal-final) / float64(len(ops)); perOp < chunkLen*8 {
		t.Errorf("Final allocated %d bytes, Tick and Total %d: %.0f fewer per op, want at least a chunk's copy (%d)", final, withTotal, perOp, chunkLen*8)
	}
}

// TestTickCopiesOnce: a tick moves each op's counts, copying them only
// into its cumulative histogram: the interval Tick returns holds the
// counts its shard took, and an op of TotalsOnly, whose intervals are
// empty, has its first interval become its total as it is. Its samples
// are in the totals and in Final's counts all the same, and so are those
// merged from several shards.
func TestTickCopiesOnce(t *testing.T) {
	ops := []string{"txn", "statement"}
	r := NewRecorder(ops)
	r.TotalsOnly(1)
	want := []*Hist{NewHist(), NewHist()}
	record := func(shards, round int) {
		for op := range ops {
			for c := range shards {
				for i := range 50 {
					d := time.Duration(100+op*1000+round*5000+c*7+i*37) * us
					r.Record(op, c, d)
					want[op].Record(d)
				}
			}
		}
	}
	record(1, 0) // shard 0 alone
	first := []*sparse{r.shards[0].hs[0], r.shards[0].hs[1]}
	hs := r.Tick()
	if hs[0].s != first[0] {
		t.Error("the interval is a copy of its shard's counts, want them as they are")
	}
	if r.total[1] != first[1] {
		t.Error("a totals-only op's first interval was copied into its total, want it as it is")
	}
	if hs[0].Count() != 50 || hs[1].Count() != 0 {
		t.Errorf("first interval: %d and %d samples, want 50 and 0 (totals only)", hs[0].Count(), hs[1].Count())
	}
	record(len(r.shards), 1)
	if got := counts(r.Tick()); got[0] != int64(50*len(r.shards)) || got[1] != 0 {
		t.Errorf("second interval: %v samples, want [%d 0]", got, 50*len(r.shards))
	}
	record(len(r.shards), 2)
	last, totals := r.Final()
	if n := int64(50 * len(r.shards)); last[0] != n || last[1] != n {
		t.Errorf("Final: %v samples in the last interval, want %d each", last, n)
	}
	for op := range ops {
		assertSame(t, totals[op], want[op])
	}
}

// TestRecordTogetherOneInterval: the samples of one RecordTogether call
// fall in one interval, with ticks coming as fast as they can beside
// four recording goroutines: every interval holds as many of op a as of
// op b, recorded in pairs. Recorded one at a time, a tick fell between a
// pair's two samples in most runs of this test.
func TestRecordTogetherOneInterval(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := NewRecorder([]string{"a", "b"})
	const pairs = 20000
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pair := []Sample{{Op: 0, D: time.Millisecond}, {Op: 1, D: 2 * time.Millisecond}}
			for range pairs {
				r.RecordTogether(g, pair)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var a, b int64
	for ticking := true; ticking; {
		select {
		case <-done:
			ticking = false
		default:
		}
		iv := r.Tick()
		if x, y := iv[0].Count(), iv[1].Count(); x != y {
			t.Fatalf("an interval holds %d samples of a and %d of b, recorded in pairs", x, y)
		}
		a += iv[0].Count()
		b += iv[1].Count()
	}
	if a != 4*pairs || b != 4*pairs {
		t.Errorf("%d and %d samples in all, want %d each", a, b, 4*pairs)
	}
}
