package suite

import (
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// RunSummary reduces one run's result to its summary row: its
// transactions (ops of KindTxn, not cycles, waits or a script's
// statements) with latencies from their merged histogram.
func RunSummary(r *result.Result) Summary {
	h := metrics.NewHist()
	var failures, ops int64
	for _, o := range r.Ops {
		if !o.Kind.IsTxn() {
			continue
		}
		ops += o.Count // completed in the window; the histogram also holds those after it
		if o.Hist != nil {
			h.Merge(o.Hist)
		}
		failures += o.ErrorCount()
	}
	hs := h.Summary()
	s := Summary{
		Ops: ops, Clients: r.Config.Clients, DurationS: r.MeasuredS,
		MeanMS: hs.Mean, P95MS: hs.P95, P99MS: hs.P99, MaxMS: hs.Max,
		Failures:             failures,
		InvariantsOK:         r.Check().OK,
		InvariantsNotChecked: r.Check().NotChecked,
	}
	s.TxnPerS = r.TxnPerS()
	return s
}

// StudySummary reduces a study's runs, cells[i] being cell i's
// repetitions, to one summary row as Summary documents: Ops and DurationS
// summed over cells of the cells' medians, TxnPerS their ratio, the
// latencies of the slowest cell (highest median p95, each latency the
// median across its repetitions), the most clients of any cell, failures
// of every run summed, and invariants OK only if every run's were.
func StudySummary(cells [][]*result.Result) Summary {
	var s Summary
	slowest := -1.0
	any := false
	inv := result.Check{OK: true}
	for _, reps := range cells {
		if len(reps) == 0 {
			continue
		}
		var ops, dur, mean, p95, p99, mx []float64
		for _, r := range reps {
			rs := RunSummary(r)
			any = true
			s.Failures += rs.Failures
			inv.Merge(*rs.Invariants())
			s.Clients = max(s.Clients, rs.Clients)
			ops, dur = append(ops, float64(rs.Ops)), append(dur, rs.DurationS)
			mean, p95 = append(mean, rs.MeanMS), append(p95, rs.P95MS)
			p99, mx = append(p99, rs.P99MS), append(mx, rs.MaxMS)
		}
		s.Ops += int64(metrics.Median(ops) + 0.5)
		s.DurationS += metrics.Median(dur)
		if m := metrics.Median(p95); m > slowest {
			slowest = m
			s.MeanMS, s.P95MS, s.P99MS, s.MaxMS = metrics.Median(mean), m, metrics.Median(p99), metrics.Median(mx)
		}
	}
	if !any {
		return Summary{}
	}
	s.InvariantsOK, s.InvariantsNotChecked = inv.OK, inv.NotChecked
	if s.DurationS > 0 {
		s.TxnPerS = float64(s.Ops) / s.DurationS
	}
	return s
}
