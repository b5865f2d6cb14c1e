package metrics

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// merger adds histograms of Hist's geometry to one another through a
// packed copy it keeps: hdrhistogram-go's Histogram.Merge walks every
// bucket up to the largest value with its general iterator (about 40
// million instructions for one run's latencies at the end of a run, issue
// 31); PackedHistogram.MergeFrom scans the counts once, and MergeInto adds
// one populated bucket at a time, index to index.
type merger struct {
	mu     sync.Mutex
	packed *hdrhistogram.PackedHistogram
}

// merges merges every histogram of the process.
var merges merger

// mergeHDR adds every count of src to dst (both of Hist's geometry, so
// nothing is dropped). dst may be src: it is doubled.
func mergeHDR(dst, src *hdrhistogram.Histogram) {
	if src.TotalCount() == 0 {
		return
	}
	merges.mu.Lock()
	defer merges.mu.Unlock()
	merges.copyOf(src).MergeInto(dst)
}

// meanHDR is h's mean as hdrhistogram-go's Histogram.Mean computes it (each
// bucket's count times its median equivalent value over the total, summed
// in bucket order), read from the packed copy: Histogram.Mean walks every
// bucket up to the largest value with the general iterator.
func meanHDR(h *hdrhistogram.Histogram) float64 {
	merges.mu.Lock()
	defer merges.mu.Unlock()
	return merges.copyOf(h).Mean()
}

// copyOf returns the packed copy holding h's counts; m.mu is held.
func (m *merger) copyOf(h *hdrhistogram.Histogram) *hdrhistogram.PackedHistogram {
	if m.packed == nil {
		m.packed = hdrhistogram.NewPacked(minMicros, maxMicros, sigDigits)
	}
	m.packed.Reset()
	m.packed.MergeFrom(h) // drops nothing: the same geometry
	return m.packed
}
