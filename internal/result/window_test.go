package result_test

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestMergeAfterWindowAndUnfinished: merging keeps the count to the ops
// completed in the windows, the latency histogram to all that completed,
// and adds up unfinished ops with the largest lower bound.
func TestMergeAfterWindowAndUnfinished(t *testing.T) {
	a, b := sample(t, 1, 4, true), sample(t, 1, 4, true)
	for _, r := range []*result.Result{a, b} {
		o := r.Op("add")
		o.AfterWindow = 2
		o.Count -= 2 // its histogram holds the 2 completed after the window
		o.Unfinished, o.UnfinishedMaxMS = 3, 1500
	}
	b.Op("add").UnfinishedMaxMS = 2500
	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	add := m.Op("add")
	if add.AfterWindow != 4 || add.Count != a.Op("add").Count+b.Op("add").Count || add.Hist.Count() != add.Count+4 {
		t.Errorf("merged: count %d, after the window %d, histogram %d", add.Count, add.AfterWindow, add.Hist.Count())
	}
	if add.Unfinished != 6 || add.UnfinishedMaxMS != 2500 {
		t.Errorf("merged: %d unfinished, max %.0f ms; want 6, 2500", add.Unfinished, add.UnfinishedMaxMS)
	}
}
