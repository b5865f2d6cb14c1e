package metrics

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"iter"
	"math"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// A run puts every op's interval histogram at rest at every progress tick
// (Compact). Done with hdrhistogram-go alone, each tick would allocate per
// op a new 190 KB counts array and, in Histogram.Encode, a zlib compressor
// of about 0.8 MB. So the counts of a histogram put at rest are kept for
// the next one (spare), and histograms are encoded by one encoder whose
// buffers and compressor are reused (codec).

// maxSpare bounds the counts kept for reuse: a tick puts one histogram per
// op at rest, and the next tick takes as many.
const maxSpare = 64

// spare holds empty histograms whose owner put them at rest.
var spare = spares[hdrhistogram.Histogram]{max: maxSpare}

// newHDR returns an empty histogram of Hist's geometry, reusing the counts
// of one put at rest when there is one.
func newHDR() *hdrhistogram.Histogram {
	return spare.get(func() *hdrhistogram.Histogram { return hdrhistogram.New(minMicros, maxMicros, sigDigits) })
}

// release empties h, which nothing refers to any more, for newHDR.
func release(h *hdrhistogram.Histogram) {
	h.Reset()
	spare.put(h)
}

// spares keeps at most max empty values put at rest, for reuse.
type spares[T any] struct {
	mu  sync.Mutex
	xs  []*T
	max int
}

// get returns a value put at rest, or a new one from make.
func (p *spares[T]) get(make func() *T) *T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.xs); n > 0 {
		x := p.xs[n-1]
		p.xs[n-1], p.xs = nil, p.xs[:n-1]
		return x
	}
	return make()
}

// put keeps x (emptied) for get, unless max are kept.
func (p *spares[T]) put(x *T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.xs) < p.max {
		p.xs = append(p.xs, x)
	}
}

// encoder writes HdrHistogram's V2 compressed encoding byte for byte as
// hdrhistogram-go's Histogram.Encode writes it (the 40-byte V2 header and
// the counts as ZigZag LEB128, zero runs as negative lengths, up to the
// highest count; zlib at its best compression; an 8-byte envelope;
// base64), into buffers it keeps. The one difference: the header's
// integer-to-double conversion ratio, metadata hdrhistogram-go carries for
// other implementations' double histograms, is always 1, as Hist's own.
type encoder struct {
	mu   sync.Mutex
	raw  []byte // V2 header and counts
	zbuf bytes.Buffer
	zw   *zlib.Writer
	out  []byte // the envelope: cookie, length, compressed
	b64  []byte
}

// codec encodes every histogram of the process.
var codec encoder

// v2HeaderSize is the size of the V2 header before the counts.
const v2HeaderSize = hdrhistogram.ENCODING_HEADER_SIZE

// The cookies hdrhistogram-go writes: the bases with word size 8 (0x10).
const (
	v2Cookie           = uint32(hdrhistogram.V2EncodingCookieBase | 0x10)
	v2CompressedCookie = uint32(hdrhistogram.V2CompressedEncodingCookieBase | 0x10)
)

// encode returns the counts of a histogram of Hist's geometry (its
// non-zero ones, ascending) in the V2 compressed encoding.
func (e *encoder) encode(counts iter.Seq2[int, int64]) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.raw = appendV2(e.raw[:0], counts)
	return e.compressLocked(e.raw)
}

// compress returns raw (appendV2's) in the V2 compressed encoding.
func (e *encoder) compress(raw []byte) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.compressLocked(raw)
}

// compressLocked is compress with e.mu held. The zlib compressor (0.8 MB,
// and Reset clears 640 KB of it) is made at the first histogram encoded
// for output: histograms at rest are not compressed (Compact).
func (e *encoder) compressLocked(raw []byte) string {
	if e.zw == nil {
		e.zw, _ = zlib.NewWriterLevel(&e.zbuf, zlib.BestCompression) // cannot fail: a valid level
	}
	e.zbuf.Reset()
	e.zw.Reset(&e.zbuf)
	_, _ = e.zw.Write(raw) // cannot fail: into a bytes.Buffer
	_ = e.zw.Close()
	out := binary.BigEndian.AppendUint32(e.out[:0], v2CompressedCookie)
	out = binary.BigEndian.AppendUint32(out, uint32(e.zbuf.Len()))
	e.out = append(out, e.zbuf.Bytes()...)
	e.b64 = base64.StdEncoding.AppendEncode(e.b64[:0], e.out)
	return string(e.b64)
}

// appendV2 appends to raw the V2 header and the counts (non-zero ones,
// ascending) of a histogram of Hist's geometry, uncompressed: what the
// V2 compressed encoding compresses.
func appendV2(raw []byte, counts iter.Seq2[int, int64]) []byte {
	start := len(raw)
	raw = binary.BigEndian.AppendUint32(raw, v2Cookie)
	raw = binary.BigEndian.AppendUint32(raw, 0) // the counts' length, set below
	raw = binary.BigEndian.AppendUint32(raw, 0) // normalizing index offset
	raw = binary.BigEndian.AppendUint32(raw, sigDigits)
	raw = binary.BigEndian.AppendUint64(raw, minMicros)
	raw = binary.BigEndian.AppendUint64(raw, uint64(maxMicros))
	raw = binary.BigEndian.AppendUint64(raw, math.Float64bits(1))
	next := 0 // the index of the next count to write
	for i, n := range counts {
		switch zeros := i - next; {
		case zeros > 1:
			raw = appendZigZag(raw, -int64(zeros))
		case zeros == 1:
			raw = appendZigZag(raw, 0)
		}
		raw = appendZigZag(raw, n)
		next = i + 1
	}
	if next == 0 { // empty: hdrhistogram-go writes the count at index 0
		raw = appendZigZag(raw, 0)
	}
	binary.BigEndian.PutUint32(raw[start+4:], uint32(len(raw)-start-v2HeaderSize))
	return raw
}

// v2Counts yields the index and count of every non-zero count of raw
// (appendV2's), ascending.
func v2Counts(raw []byte) iter.Seq2[int, int64] {
	return func(yield func(int, int64) bool) {
		b, idx := raw[v2HeaderSize:], 0
		for len(b) > 0 {
			var v int64
			v, b = readZigZag(b)
			switch {
			case v < 0:
				idx += int(-v)
			case v == 0:
				idx++
			default:
				if !yield(idx, v) {
					return
				}
				idx++
			}
		}
	}
}

// readZigZag reads a value appendZigZag wrote from the front of b, and
// returns it and the rest of b.
func readZigZag(b []byte) (int64, []byte) {
	var u uint64
	i := 0
	for ; i < 8; i++ {
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), b[i+1:]
		}
	}
	u |= uint64(b[8]) << 56
	return int64(u>>1) ^ -int64(u&1), b[9:]
}

// appendZigZag appends v as hdrhistogram's ZigZag LEB128-64b9B: seven bits
// a byte, and all eight of the ninth.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}
