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
	merges.mu.Lock()
	defer merges.mu.Unlock()
	if merges.packed == nil {
		merges.packed = hdrhistogram.NewPacked(minMicros, maxMicros, sigDigits)
	}
	merges.packed.Reset()
	merges.packed.MergeFrom(src)
	merges.packed.MergeInto(dst)
}
