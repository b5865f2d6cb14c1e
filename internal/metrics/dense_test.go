package metrics

import (
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestDenseIsHdrs: the mean, standard deviation and merge read from the
// counts in place are hdrhistogram-go's own, value for value, for
// histograms empty, of one value, and of spread values up to the hour.
func TestDenseIsHdrs(t *testing.T) {
	if countsOf(newHDR()) == nil {
		t.Fatal("hdrhistogram-go's Histogram has no counts []int64: the dense path is never taken")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	spread := newHDR()
	for range 20000 {
		_ = spread.RecordValue(1 + rng.Int64N(maxMicros>>uint(rng.IntN(32))))
	}
	one := newHDR()
	_ = one.RecordValue(2345)
	for name, h := range map[string]*hdrhistogram.Histogram{"empty": newHDR(), "one": one, "spread": spread} {
		if got, want := meanOf(h), h.Mean(); got != want {
			t.Errorf("%s: mean %v, hdrhistogram-go's %v", name, got, want)
		}
		if got, want := stdDevOf(h), h.StdDev(); got != want {
			t.Errorf("%s: stddev %v, hdrhistogram-go's %v", name, got, want)
		}
		ours, theirs := newHDR(), newHDR()
		_ = ours.RecordValue(77)
		_ = theirs.RecordValue(77)
		mergeInto(ours, h)
		theirs.Merge(h)
		if !ours.Equals(theirs) {
			t.Errorf("%s: merged counts differ from hdrhistogram-go's Merge", name)
		}
		mergeInto(ours, ours)
		theirs.Merge(theirs)
		if !ours.Equals(theirs) || ours.TotalCount() != 2*(1+h.TotalCount()) {
			t.Errorf("%s: merged into itself: %d samples, want %d", name, ours.TotalCount(), 2*(1+h.TotalCount()))
		}
	}
}
