package metrics

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every Hist: values are microseconds.
const (
	minMicros = 1
	maxMicros = int64(time.Hour / time.Microsecond)
	sigDigits = 3
)

// v2EncodingCookie is the cookie of the uncompressed V2 header inside the
// compressed envelope (hdrhistogram-go exports only the cookie bases).
const v2EncodingCookie = hdrhistogram.V2EncodingCookieBase

// Hist is an HDR latency histogram in microseconds (1 µs .. 1 h, 3 significant
// digits). Its methods are not safe for concurrent use. The zero Hist is an
// empty histogram ready to use, but NewHist is preferred.
type Hist struct {
	h *hdrhistogram.Histogram
	// s holds the counts instead of h in a histogram a Recorder made
	// (Tick, Total): allocated where samples fell (see sparse).
	s *sparse
	// rest is the histogram at rest (see Compact): its counts as the V2
	// encoding writes them before compressing (appendV2), decoded at the
	// next use, compressed only when encoded; h and s are nil meanwhile.
	rest []byte
	// enc is a histogram read from JSON (UnmarshalJSON) at rest: Encode's
	// output, decoded at the next use.
	enc string
}

// Summary is what tables show; all latencies in milliseconds (float64), Count
// is the number of samples. Percentiles, Mean and Max are within the
// histogram's precision (0.1%) of the exact values.
type Summary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// NewHist returns an empty histogram.
func NewHist() *Hist {
	return &Hist{h: newHDR()}
}

// counts returns the underlying histogram, decoding a compacted one
// without keeping it; nil for a zero Hist.
func (h *Hist) counts() *hdrhistogram.Histogram {
	if h.h == nil && h.rest != nil {
		d := newHDR()
		addTo(d, v2Counts(h.rest))
		return d
	}
	if h.h == nil && h.enc != "" {
		if d, err := DecodeHist(h.enc); err == nil { // cannot fail: Encode wrote it
			return d.h
		}
	}
	return h.h
}

// all yields the index and count of every non-zero count, leaving a
// compacted histogram at rest.
func (h *Hist) all() iter.Seq2[int, int64] {
	if h.s != nil {
		return h.s.all()
	}
	if h.h == nil && h.rest != nil {
		return v2Counts(h.rest)
	}
	if d := h.counts(); d != nil {
		return denseCounts(d)
	}
	return func(func(int, int64) bool) {}
}

// view returns a dense histogram of h's samples to read, and what to call
// when done with it; nil for a zero Hist.
func (h *Hist) view() (*hdrhistogram.Histogram, func()) {
	if h.s != nil {
		d := h.s.dense()
		return d, func() { release(d) }
	}
	return h.hdr(), func() {}
}

// hdr returns the underlying histogram, decoding a compacted one for good;
// nil for a zero Hist.
func (h *Hist) hdr() *hdrhistogram.Histogram {
	if h.h == nil && (h.rest != nil || h.enc != "") {
		h.h, h.rest, h.enc = h.counts(), nil, ""
	}
	return h.h
}

// hist returns the underlying histogram, allocating it for a zero Hist.
func (h *Hist) hist() *hdrhistogram.Histogram {
	if h.hdr() == nil {
		h.h = newHDR()
	}
	return h.h
}

// Compact puts the histogram at rest until its next use: its non-zero
// counts as the V2 encoding writes them before compressing, some hundred
// bytes instead of the 190 KB of its counts, so a run can keep a
// histogram per op and progress interval. The counts go to the next new
// histogram, so a run that puts its interval histograms at rest does not
// allocate new ones. Its next use decodes it; encoding it compresses it
// (not before: a run that writes no JSON makes no zlib compressor).
// The error is always nil.
func (h *Hist) Compact() error {
	switch {
	case h.s != nil:
		h.rest = bytes.Clone(appendV2(nil, h.s.all()))
		h.s.release()
		h.s = nil
	case h.h != nil:
		h.rest = bytes.Clone(appendV2(nil, denseCounts(h.h)))
		release(h.h)
		h.h = nil
	}
	return nil
}

// toMicros converts d to whole microseconds within the histogram's range.
// Durations below 1 µs become 1 µs; durations above 1 h become 1 h and
// clamped is true.
func toMicros(d time.Duration) (us int64, clamped bool) {
	us = int64(d / time.Microsecond)
	switch {
	case us < minMicros:
		return minMicros, false
	case us > maxMicros:
		return maxMicros, true
	}
	return us, false
}

// Record adds one sample. Durations below 1 µs record as 1 µs and durations
// above 1 h record as 1 h. Record is not safe for concurrent use.
func (h *Hist) Record(d time.Duration) {
	us, _ := toMicros(d)
	if h.s != nil {
		h.s.record(us)
		return
	}
	// Cannot fail: us is within range and the count cannot overflow in practice.
	_ = h.hist().RecordValue(us)
}

// Merge adds every sample of o to h. The merge is exact: both histograms
// have the same geometry, so counts are added bucket by bucket. A
// compacted o (see Compact) stays compacted.
func (h *Hist) Merge(o *Hist) {
	if o == nil {
		return
	}
	src := o.all() // o stays at rest
	// Dropped counts are impossible: both sides have the same geometry.
	// Each count is read before it is added to, so h.Merge(h) doubles h
	// correctly.
	if h.s != nil {
		h.s.merge(src)
		return
	}
	addTo(h.hist(), src)
}

// Count returns the number of samples.
func (h *Hist) Count() int64 {
	if h.s != nil {
		return h.s.total
	}
	if h.hdr() == nil {
		return 0
	}
	return h.h.TotalCount()
}

// Reset removes all samples.
func (h *Hist) Reset() {
	if h.s != nil {
		h.s.reset()
	} else if h.hdr() != nil {
		h.h.Reset()
	}
}

// ValueAt returns the latency at percentile q in [0, 100] (values outside are
// clamped), or 0 for an empty histogram. The result is the highest value
// equivalent to the percentile's bucket, so it may exceed the exact value by
// up to 0.1%.
func (h *Hist) ValueAt(q float64) time.Duration {
	if h.Count() == 0 {
		return 0
	}
	d, done := h.view()
	defer done()
	return time.Duration(d.ValueAtPercentile(q)) * time.Microsecond
}

// StdDev returns the standard deviation of the samples in milliseconds.
func (h *Hist) StdDev() float64 {
	if h.Count() == 0 {
		return 0
	}
	d, done := h.view()
	defer done()
	return stdDevOf(d) / 1000
}

// Summary returns the count, mean, percentiles and maximum in milliseconds.
// An empty histogram gives all zeros.
func (h *Hist) Summary() Summary {
	if h.Count() == 0 {
		return Summary{}
	}
	d, done := h.view()
	defer done()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	// The 100th percentile is Max (the highest equivalent value of the
	// last non-empty bucket), read in the same scan of the counts: Max
	// itself walks them again, slowly (issue 31).
	v := d.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 100})
	return Summary{
		Count: d.TotalCount(),
		Mean:  meanOf(d) / 1000,
		P50:   ms(v[0]),
		P90:   ms(v[1]),
		P95:   ms(v[2]),
		P99:   ms(v[3]),
		Max:   ms(v[4]),
	}
}

// Encode returns the histogram in HdrHistogram's V2 compressed encoding
// (zlib, then base64), readable by DecodeHist and by other HdrHistogram
// implementations. The error is always nil (an encoder of its own writes
// what hdrhistogram-go's would, see encoder).
func (h *Hist) Encode() (string, error) {
	switch {
	case h.s != nil:
		return codec.encode(h.s.all()), nil
	case h.h == nil && h.rest != nil:
		return codec.compress(h.rest), nil
	case h.h == nil && h.enc != "":
		return h.enc, nil
	}
	return codec.encode(denseCounts(h.hist())), nil
}

// DecodeHist decodes a histogram written by Encode. It returns an error for
// anything that is not a V2 compressed histogram with Hist's geometry
// (1 µs .. 1 h, 3 significant digits), since merging histograms of another
// geometry would not be exact.
func DecodeHist(s string) (*Hist, error) {
	if err := checkGeometry(s); err != nil {
		return nil, fmt.Errorf("metrics: decode histogram: %w", err)
	}
	d, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("metrics: decode histogram: %w", err)
	}
	if d.LowestTrackableValue() != minMicros || d.HighestTrackableValue() != maxMicros || d.SignificantFigures() != sigDigits {
		return nil, fmt.Errorf("metrics: decode histogram: geometry %d..%d/%d, want %d..%d/%d",
			d.LowestTrackableValue(), d.HighestTrackableValue(), d.SignificantFigures(), minMicros, maxMicros, sigDigits)
	}
	return &Hist{h: d}, nil
}

// checkGeometry reads only the header of an encoded histogram and rejects a
// geometry other than Hist's before hdrhistogram.Decode allocates the counts
// array the header asks for (tens of megabytes for a hostile header).
func checkGeometry(s string) error {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("not base64: %w", err)
	}
	if len(raw) < 8 {
		return errors.New("too short to be an encoded histogram")
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return fmt.Errorf("not a compressed histogram: %w", err)
	}
	defer z.Close()
	var hdr [32]byte
	if _, err := io.ReadFull(z, hdr[:]); err != nil {
		return fmt.Errorf("truncated histogram header: %w", err)
	}
	cookie := int32(binary.BigEndian.Uint32(hdr[0:4])) &^ 0xf0
	if cookie != v2EncodingCookie {
		return errors.New("not a V2 histogram encoding")
	}
	sig := int32(binary.BigEndian.Uint32(hdr[12:16]))
	lo := int64(binary.BigEndian.Uint64(hdr[16:24]))
	hi := int64(binary.BigEndian.Uint64(hdr[24:32]))
	if lo != minMicros || hi != maxMicros || sig != sigDigits {
		return fmt.Errorf("geometry %d..%d/%d, want %d..%d/%d", lo, hi, sig, minMicros, maxMicros, sigDigits)
	}
	return nil
}

// MarshalJSON encodes the histogram as a JSON string holding Encode's output.
func (h *Hist) MarshalJSON() ([]byte, error) {
	s, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// UnmarshalJSON decodes a JSON string written by MarshalJSON, refusing
// one that does not decode, and keeps it compacted (see Compact) until
// used. JSON null leaves the histogram unchanged.
func (h *Hist) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("metrics: decode histogram: want a JSON string: %w", err)
	}
	if _, err := DecodeHist(s); err != nil {
		return err
	}
	h.h, h.s, h.rest, h.enc = nil, nil, nil, s // at rest (Compact) until used: a long run has many
	return nil
}

// CountsAtOrBelow returns, for each of bounds (ascending), how many samples
// are at or below it: the cumulative buckets of a Prometheus histogram. A
// sample counts under a bound when the lowest value of its histogram bucket
// is at or below the bound, so the counts are exact to the histogram's
// precision (0.1%, and whole microseconds). It reads the counts in one
// pass, in place.
func (h *Hist) CountsAtOrBelow(bounds []time.Duration) []int64 {
	counts := make([]int64, len(bounds))
	if h.Count() == 0 {
		return counts
	}
	j := 0
	for idx, n := range h.all() {
		from := lowestAt(idx)
		for j < len(bounds) && int64(bounds[j]/time.Microsecond) < from {
			j++
		}
		if j == len(bounds) {
			break
		}
		counts[j] += n
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	return counts
}

// subBucketHalfMagnitude is log2 of half the sub-buckets of Hist's
// geometry: 2 * 10^sigDigits values need 2^11 sub-buckets.
const subBucketHalfMagnitude = 10

// lowestAt is the lowest value (µs) counted at index idx of the counts
// array of Hist's geometry (unit magnitude 0: the lowest value is 1): the
// first 2^11 indexes are 0..2047 exactly, then each bucket of 2^10 indexes
// doubles the values' spacing.
func lowestAt(idx int) int64 {
	bucket := max(0, idx>>subBucketHalfMagnitude-1)
	sub := int64(idx - bucket<<subBucketHalfMagnitude)
	return sub << bucket
}
