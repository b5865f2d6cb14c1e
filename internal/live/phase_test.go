package live

import (
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// TestPhaseNamedLikeAnOp: a phase named like an op is a series of its own
// (kind="phase"), not added to the op's.
func TestPhaseNamedLikeAnOp(t *testing.T) {
	m := New()
	m.Begin(info(""))
	h := metrics.NewHist()
	h.Record(time.Millisecond)
	h2 := metrics.NewHist()
	h2.Record(time.Millisecond)
	h2.Record(2 * time.Millisecond)
	iv := result.Interval{LengthS: 1, Ops: []result.IntervalOp{
		{Name: "add", Kind: result.KindTxn, Summary: h.Summary(), Hist: h},
		{Name: "add", Kind: result.KindPhase, Summary: h2.Summary(), Hist: h2},
	}}
	if err := m.Observe(iv); err != nil {
		t.Fatal(err)
	}
	fams, _ := scrape(t, m) // parsed strictly: no duplicate series
	if v := value(t, fams, "txnbench_ops_total", "op", "add", "kind", "transaction"); v != 1 {
		t.Errorf("op add: %g ops, want 1", v)
	}
	if v := value(t, fams, "txnbench_ops_total", "op", "add", "kind", "phase"); v != 2 {
		t.Errorf("phase add: %g, want 2", v)
	}
}
