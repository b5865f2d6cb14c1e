package metrics

import (
	"iter"
	"math"
	"reflect"
	"unsafe"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// hdrhistogram-go's Mean, StdDev and Merge walk a histogram's buckets
// through its iterator, ~150 instructions a bucket up to the highest
// populated one (some thousands for latencies of milliseconds): a run's
// last tick, which merges and summarises every op's histograms, cost 12-14
// M instructions, a third of `txnbench pgbench -t 1`'s start-up and exit
// (issue 40). Here they read the dense counts array in place, a few
// instructions a bucket, and compute what hdrhistogram-go computes in the
// same order (TestDenseIsHdrs holds them to it, value for value).

// countsOffset is where a Histogram keeps its counts, found once; ^0 if
// hdrhistogram-go's Histogram has no counts []int64 (another version).
var countsOffset = func() uintptr {
	f, ok := reflect.TypeFor[hdrhistogram.Histogram]().FieldByName("counts")
	if !ok || f.Type != reflect.TypeFor[[]int64]() {
		return ^uintptr(0)
	}
	return f.Offset
}()

// countsOf is h's counts array (Hist's geometry: index i counts the
// values from lowestAt(i)) up to its last count, read only: in place, or
// a copy if another version of hdrhistogram-go keeps it elsewhere.
func countsOf(h *hdrhistogram.Histogram) []int64 {
	var counts []int64
	if countsOffset == ^uintptr(0) {
		counts = h.Export().Counts
	} else {
		counts = *(*[]int64)(unsafe.Add(unsafe.Pointer(h), countsOffset))
	}
	left := h.TotalCount()
	for i, n := range counts {
		if left -= n; left <= 0 {
			return counts[:i+1]
		}
	}
	return counts[:0]
}

// medianAt is the median equivalent value of index idx's bucket, as
// hdrhistogram-go's medianEquivalentValue of its lowest value.
func medianAt(idx int) int64 {
	bucket := max(0, idx>>subBucketHalfMagnitude-1)
	return lowestAt(idx) + (int64(1)<<bucket)>>1
}

// meanOf is h.Mean().
func meanOf(h *hdrhistogram.Histogram) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	counts := countsOf(h)
	var mean float64
	total := float64(h.TotalCount())
	for idx, n := range counts {
		if n != 0 {
			mean += float64(n) * float64(medianAt(idx)) / total
		}
	}
	return mean
}

// stdDevOf is h.StdDev().
func stdDevOf(h *hdrhistogram.Histogram) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	counts := countsOf(h)
	mean := meanOf(h)
	var dev2 float64
	total := float64(h.TotalCount())
	for idx, n := range counts {
		if n != 0 {
			dev := float64(medianAt(idx)) - mean
			dev2 += (dev * dev) * float64(n) / total
		}
	}
	return math.Sqrt(dev2)
}

// mergeInto adds src's counts to dst (both of Hist's geometry), as
// dst.Merge(src).
func mergeInto(dst, src *hdrhistogram.Histogram) { addTo(dst, denseCounts(src)) }

// addTo adds counts (indexes of Hist's geometry) to dst. Merging a
// histogram into itself doubles it, as with Merge: each count is read
// before it is added to.
func addTo(dst *hdrhistogram.Histogram, counts iter.Seq2[int, int64]) {
	for idx, n := range counts {
		_ = dst.RecordValues(lowestAt(idx), n) // cannot fail: the same geometry
	}
}
