package suite

import "testing"

// TestRunSummaryCountsTheWindow: ops completed after the window are in the
// latencies but not in the summary's ops or txn/s, as in the table.
func TestRunSummaryCountsTheWindow(t *testing.T) {
	r := run(100, 10, 10, 4, 0, true)
	add := &r.Ops[0]
	add.AfterWindow = 20
	add.Count -= 20 // the histogram holds all 100
	if s := RunSummary(r); s.Ops != 180 || s.TxnPerS != 18 {
		t.Errorf("summary ops %d, %.1f txn/s; want 180, 18", s.Ops, s.TxnPerS)
	}
}
