package result

import "github.com/txnbench/txnbench/internal/metrics"

// DeltaCounters are the Telemetry.Database counters the scenario tables of
// suites and studies show (the columns of a published baseline): commits,
// rollbacks, buffer hits and reads, tuples inserted, updated, deleted.
var DeltaCounters = []string{"xact_commit", "xact_rollback", "blks_hit", "blks_read", "tup_inserted", "tup_updated", "tup_deleted"}

// TxnSummary is r's transactions (ops of KindTxn: not cycles, waits,
// phases or a script's statements) as one row: Count those completed in
// the measured window, latencies from their histograms merged (which also
// hold those completed just after it).
func (r *Result) TxnSummary() metrics.Summary {
	h := metrics.NewHist()
	var n int64
	for _, o := range r.Ops {
		if !o.Kind.IsTxn() {
			continue
		}
		n += o.Count
		if o.Hist != nil {
			h.Merge(o.Hist)
		}
	}
	s := h.Summary()
	s.Count = n
	return s
}

// TopWait is the wait event the sampled sessions of rs were seen in most
// often, their samples summed over every result (e.g.
// "Client:ClientRead"), and its share of all samples, 0..1; "" when no
// result sampled any.
func TopWait(rs ...*Result) (string, float64) {
	counts := map[string]int64{}
	var total int64
	for _, r := range rs {
		if r == nil || r.Telemetry == nil || r.Telemetry.Waits == nil {
			continue
		}
		total += r.Telemetry.Waits.ActiveSamples
		for _, e := range r.Telemetry.Waits.Events {
			counts[e.Name] += e.Samples
		}
	}
	top, most := "", int64(0)
	for name, n := range counts {
		if n > most || n == most && name < top {
			top, most = name, n
		}
	}
	if most == 0 || total == 0 {
		return "", 0
	}
	return top, float64(most) / float64(total)
}

// OpOf returns the op named name of kind kind (a workload's phase may
// share its name with a transaction), nil when there is none.
func (r *Result) OpOf(name string, kind Kind) *Op {
	for i := range r.Ops {
		if o := &r.Ops[i]; o.Name == name && (o.Kind == kind || o.Kind.IsTxn() && kind.IsTxn()) {
			return o
		}
	}
	return nil
}

// PhaseRows are the rows of a phase table among ops (kind gives each
// one's Kind), in their order: none when no op is a phase; otherwise the
// transactions, then the phases, so that a workload whose cycle spans
// goroutines (a workflow: start, signal_publish, then signal_to_completion)
// shows every part of it in one table.
func PhaseRows[T any](ops []T, kind func(T) Kind) []T {
	var txns, phases []T
	for _, o := range ops {
		switch k := kind(o); {
		case k == KindPhase:
			phases = append(phases, o)
		case k.IsTxn():
			txns = append(txns, o)
		}
	}
	if len(phases) == 0 {
		return nil
	}
	return append(txns, phases...)
}
