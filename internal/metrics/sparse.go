package metrics

import (
	"iter"
	"math/bits"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// A dense histogram of Hist's geometry (1 µs .. 1 h, 3 digits) is 23,552
// counts, 190 KB, whatever it holds. The latencies of one op fill a few
// hundred of them: a `\set` of a script a handful, a statement a few
// stretches. A run records an op into a shard per recording goroutine
// and a cumulative histogram, so a script of 42 steps held 14 MB of
// counts, most of its peak memory (issue 40). sparse keeps the same
// counts at the same indexes in chunks allocated at their first sample:
// nothing is lost (a count at an index is the count at that index of the
// dense histogram), and what it answers it answers through a dense
// histogram filled from it (scratch), so every figure is hdrhistogram-go's.

const (
	// countsLen is the counts of Hist's geometry: 22 buckets of 2^10
	// sub-buckets above the first bucket's 2^11 (TestSparseIsDense holds
	// it to hdrhistogram-go's).
	countsLen = 23 << subBucketHalfMagnitude
	// chunkBits is log2 of the counts a chunk holds: 128 counts, 1 KB.
	chunkBits = 7
	chunkLen  = 1 << chunkBits
)

// sparse is a histogram of Hist's geometry whose counts are allocated a
// chunk at a time, at the chunk's first sample. Not safe for concurrent
// use.
type sparse struct {
	total  int64
	chunks [countsLen / chunkLen]*[chunkLen]int64
}

// indexOf is the index of v's count (µs, within Hist's range), as
// hdrhistogram-go's countsIndexFor: the first 2^11 values are their own
// indexes, then each bucket of 2^10 halves the resolution.
func indexOf(v int64) int {
	bucket := 64 - bits.LeadingZeros64(uint64(v)|(1<<(subBucketHalfMagnitude+1)-1)) - (subBucketHalfMagnitude + 1)
	return (bucket+1)<<subBucketHalfMagnitude + int(v>>bucket) - 1<<subBucketHalfMagnitude
}

// add counts n more at index idx.
func (s *sparse) add(idx int, n int64) {
	c := s.chunks[idx>>chunkBits]
	if c == nil {
		c = newChunk()
		s.chunks[idx>>chunkBits] = c
	}
	c[idx&(chunkLen-1)] += n
	s.total += n
}

// record adds one sample of us microseconds (within Hist's range).
func (s *sparse) record(us int64) { s.add(indexOf(us), 1) }

// all yields the index and count of every non-zero count, ascending.
func (s *sparse) all() iter.Seq2[int, int64] {
	return func(yield func(int, int64) bool) {
		for ci, c := range s.chunks {
			if c == nil {
				continue
			}
			for i, n := range c {
				if n != 0 && !yield(ci<<chunkBits+i, n) {
					return
				}
			}
		}
	}
}

// merge adds every count of src (a sparse or dense histogram's) to s.
func (s *sparse) merge(src iter.Seq2[int, int64]) {
	for idx, n := range src {
		s.add(idx, n)
	}
}

// reset empties s, keeping its chunks for the next samples.
func (s *sparse) reset() {
	for _, c := range s.chunks {
		if c != nil {
			*c = [chunkLen]int64{}
		}
	}
	s.total = 0
}

// maxSpareChunks bounds the chunks kept for reuse: what a progress
// tick's interval histograms put at rest, for the shards' samples of the
// next interval. A tick hands the shards' counts to the interval (see
// Recorder.Tick), so they come back through here: 512 KB for each shard
// an op may have, where each shard kept its own before and the interval's
// came from 512 spares.
const maxSpareChunks = 512 * maxShards

// spareChunks holds zeroed chunks of histograms put at rest.
var spareChunks = spares[[chunkLen]int64]{max: maxSpareChunks}

// newChunk returns zeroed counts for a chunk, reusing a spare one.
func newChunk() *[chunkLen]int64 {
	return spareChunks.get(func() *[chunkLen]int64 { return new([chunkLen]int64) })
}

// release empties s, which nothing will use again, giving its chunks to
// newChunk.
func (s *sparse) release() {
	for i, c := range s.chunks {
		if c != nil {
			*c = [chunkLen]int64{}
			spareChunks.put(c)
		}
		s.chunks[i] = nil
	}
	s.total = 0
}

// clone returns a copy of s holding only the chunks with counts.
func (s *sparse) clone() *sparse {
	c := &sparse{}
	c.merge(s.all())
	return c
}

// dense returns a dense histogram of s's counts, for release when read:
// the spare one of a process that answers one at a time.
func (s *sparse) dense() *hdrhistogram.Histogram {
	h := newHDR()
	addTo(h, s.all())
	return h
}

// denseCounts yields the index and count of every non-zero count of h
// (Hist's geometry), ascending.
func denseCounts(h *hdrhistogram.Histogram) iter.Seq2[int, int64] {
	return func(yield func(int, int64) bool) {
		for idx, n := range countsOf(h) {
			if n != 0 && !yield(idx, n) {
				return
			}
		}
	}
}
