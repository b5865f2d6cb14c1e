package suite

import (
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// RunSummary reduces one run's result to its summary row: its
// transactions (ops of KindTxn, not cycles, waits, phases or a script's
// statements) with latencies from their merged histogram, its phases,
// its database counters and its top wait.
func RunSummary(r *result.Result) Summary {
	var failures int64
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			failures += o.ErrorCount()
		}
	}
	hs := r.TxnSummary()
	s := Summary{
		Ops: hs.Count, Txns: hs.Count, Clients: r.Config.Clients, DurationS: r.MeasuredS,
		MeanMS: hs.Mean, P90MS: hs.P90, P95MS: hs.P95, P99MS: hs.P99, MaxMS: hs.Max,
		Failures:             failures,
		InvariantsOK:         r.Check().OK,
		InvariantsNotChecked: r.Check().NotChecked,
	}
	if c := r.Op(result.CycleOp); c != nil && r.CycleUnit != "" {
		s.Unit, s.Ops, s.Failures = r.CycleUnit, c.Count, c.ErrorCount()
		s.MeanMS, s.P90MS, s.P95MS, s.P99MS, s.MaxMS = c.Mean, c.P90, c.P95, c.P99, c.Max
	}
	s.TxnPerS = r.TxnPerS()
	if r.MeasuredS > 0 {
		s.OpsPerS = float64(s.Ops) / r.MeasuredS
	}
	for _, o := range result.PhaseRows(r.Ops, func(o result.Op) result.Kind { return o.Kind }) {
		s.Phases = append(s.Phases, Phase{Name: o.Name, Count: o.Count, MeanMS: o.Mean, P90MS: o.P90, P95MS: o.P95, P99MS: o.P99, MaxMS: o.Max})
	}
	if r.Telemetry != nil {
		for _, k := range result.DeltaCounters {
			if v, ok := r.Telemetry.Database[k]; ok {
				if s.Database == nil {
					s.Database = map[string]int64{}
				}
				s.Database[k] = v
			}
		}
		if c, ok := r.ServerCommits(); ok {
			s.Commits = &c
		}
	}
	s.TopWait, s.TopWaitShare = result.TopWait(r)
	return s
}

// StudySummary reduces a study's runs, cells[i] being cell i's
// repetitions, to one summary row as Summary documents: Ops, DurationS
// and the database counters summed over cells of the cells' medians,
// TxnPerS the ratio of the first two, the latencies and phases of the
// slowest cell (highest median p95, each latency the median across its
// repetitions), the most clients of any cell, failures of every run
// summed, the top wait over every run, and invariants OK only if every
// run's were.
func StudySummary(cells [][]*result.Result) Summary {
	var s Summary
	slowest := -1.0
	any := false
	inv := result.Check{OK: true}
	var all []*result.Result
	for _, reps := range cells {
		if len(reps) == 0 {
			continue
		}
		var rows []Summary
		for _, r := range reps {
			rs := RunSummary(r)
			rows = append(rows, rs)
			all = append(all, r)
			any = true
			s.Failures += rs.Failures
			inv.Merge(*rs.Invariants())
			s.Clients = max(s.Clients, rs.Clients)
		}
		med := func(f func(Summary) float64) float64 {
			xs := make([]float64, len(rows))
			for i, r := range rows {
				xs[i] = f(r)
			}
			return metrics.Median(xs)
		}
		s.Ops += int64(med(func(r Summary) float64 { return float64(r.Ops) }) + 0.5)
		s.Txns += int64(med(func(r Summary) float64 { return float64(r.Txns) }) + 0.5)
		s.Unit = rows[0].Unit
		s.DurationS += med(func(r Summary) float64 { return r.DurationS })
		for _, k := range result.DeltaCounters {
			if _, ok := rows[0].Database[k]; ok {
				if s.Database == nil {
					s.Database = map[string]int64{}
				}
				s.Database[k] += int64(med(func(r Summary) float64 { return float64(r.Database[k]) }) + 0.5)
			}
		}
		var cs []result.Commits
		for _, r := range rows {
			if r.Commits != nil {
				cs = append(cs, *r.Commits)
			}
		}
		if c := result.MedianCommits(cs); c != nil {
			if s.Commits == nil {
				s.Commits = &result.Commits{}
			}
			s.Commits.Add(*c)
		}
		if m := med(func(r Summary) float64 { return r.P95MS }); m > slowest {
			slowest = m
			s.MeanMS, s.P90MS, s.P95MS = med(func(r Summary) float64 { return r.MeanMS }), med(func(r Summary) float64 { return r.P90MS }), m
			s.P99MS, s.MaxMS = med(func(r Summary) float64 { return r.P99MS }), med(func(r Summary) float64 { return r.MaxMS })
			s.Phases = medianPhases(rows)
		}
	}
	if !any {
		return Summary{}
	}
	s.InvariantsOK, s.InvariantsNotChecked = inv.OK, inv.NotChecked
	if s.DurationS > 0 {
		s.OpsPerS, s.TxnPerS = float64(s.Ops)/s.DurationS, float64(s.Txns)/s.DurationS
	}
	s.TopWait, s.TopWaitShare = result.TopWait(all...)
	return s
}

// medianPhases is each phase of the first row with each of its values the
// median over the rows that have it.
func medianPhases(rows []Summary) []Phase {
	var out []Phase
	for _, p := range rows[0].Phases {
		var ps []Phase
		for _, r := range rows {
			for _, q := range r.Phases {
				if q.Name == p.Name {
					ps = append(ps, q)
				}
			}
		}
		med := func(f func(Phase) float64) float64 {
			xs := make([]float64, len(ps))
			for i, q := range ps {
				xs[i] = f(q)
			}
			return metrics.Median(xs)
		}
		out = append(out, Phase{Name: p.Name, Count: int64(med(func(q Phase) float64 { return float64(q.Count) }) + 0.5),
			MeanMS: med(func(q Phase) float64 { return q.MeanMS }), P90MS: med(func(q Phase) float64 { return q.P90MS }),
			P95MS: med(func(q Phase) float64 { return q.P95MS }), P99MS: med(func(q Phase) float64 { return q.P99MS }),
			MaxMS: med(func(q Phase) float64 { return q.MaxMS })})
	}
	return out
}

// Rate is the Throughput/s column: ops per second (a suite.json from
// before ops_per_s has its transactions' rate, the same thing then).
func (s Summary) Rate() float64 {
	if s.OpsPerS == 0 && s.Unit == "" {
		return s.TxnPerS
	}
	return s.OpsPerS
}

// TxnCount is the Txns column: the transactions (a suite.json from before
// txns has them as its ops).
func (s Summary) TxnCount() int64 {
	if s.Txns == 0 && s.Unit == "" {
		return s.Ops
	}
	return s.Txns
}
