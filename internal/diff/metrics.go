package diff

import (
	"math"
	"slices"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/stats"
)

// value is one metric of one unit, before it is compared.
type value struct {
	op     string // "" for the whole run
	kind   result.Kind
	metric string // e.g. "ops/s", "p99 ms", "rollbacks/txn"
	family Family
	unit   string // how to print it: rate, ms, ratio, count, bytes, ok
	higher bool   // higher is better
	floor  float64
	v      float64
	n      int64 // samples behind it (ops measured), for MinSamples
	min    int64 // fewest samples for it to be compared
	// spread is the range of the value across a study cell's repetitions
	// relative to their median, in %; 0 for a single run.
	spread float64
	// reps are the value of each repetition (a unit of two or more);
	// series the value of each of a single run's progress intervals, with
	// drift what its machine's busy share says of the noise between runs
	// (of a unit of repetitions, the median of theirs; noise.go). The statistics of the comparison come from them.
	reps   []float64
	series []float64
	drift  float64
}

func (v value) key() string { return v.opID() + "\x00" + v.metric }

// opID names the op a value is of, with its kind when it is a phase: a
// phase and an op of the same name are different units, never compared
// with each other.
func (v value) opID() string {
	if v.kind == result.KindPhase {
		return v.op + " (phase)"
	}
	return v.op
}

// label is the metric's name in tables: "add p99 ms", "txn/s",
// "signal_to_completion (phase) p95 ms".
func (v value) label() string {
	if v.op == "" {
		return v.metric
	}
	return v.opID() + " " + v.metric
}

// The units values are printed in (Decision.Unit).
const (
	UnitRate  = "rate"  // per second
	UnitMS    = "ms"    // milliseconds
	UnitRatio = "ratio" // 0..1, printed as %
	UnitCount = "count" // per transaction
	UnitBytes = "bytes" // per transaction
	UnitOK    = "ok"    // 1 OK, 0 violated
)

// databaseCounters are the Telemetry.Database counters compared per
// transaction, with their labels; all are costs (higher is worse).
var databaseCounters = []struct{ key, label, unit string }{
	{"xact_commit", "commits/txn", UnitCount},
	{"xact_rollback", "rollbacks/txn", UnitCount},
	{"blks_hit", "blks_hit/txn", UnitCount},
	{"deadlocks", "deadlocks/txn", UnitCount},
	{"blks_read", "blks_read/txn", UnitCount},
	{"tup_inserted", "tup_inserted/txn", UnitCount},
	{"tup_updated", "tup_updated/txn", UnitCount},
	{"tup_deleted", "tup_deleted/txn", UnitCount},
	{"tup_fetched", "tup_fetched/txn", UnitCount},
	{"tup_returned", "tup_returned/txn", UnitCount},
	{"wal_bytes", "wal_bytes/txn", UnitBytes},
	{"temp_bytes", "temp_bytes/txn", UnitBytes},
}

// compared tells whether an op's rows are compared: transactions, the
// cycle, waits and a workload's phases; not a script's per-command rows
// nor the schedule lag.
func compared(o result.Op) bool {
	return o.Kind.IsTxn() || o.Kind == result.KindCycle || o.Kind == result.KindWait || o.Kind == result.KindPhase
}

// values are the metrics of one result, in report order.
func values(r *result.Result) []value {
	txns, _ := r.Transactions()
	var vs []value
	drift := machineDrift(r)
	if r.MeasuredS > 0 {
		vs = append(vs, value{metric: "txn/s", family: FamThroughput, unit: UnitRate, higher: true,
			v: r.TxnPerS(), n: txns, min: MinSamples, series: rateSeries(r, func(o result.IntervalOp) bool { return o.Kind.IsTxn() }), drift: drift})
	}
	for _, o := range r.Ops {
		if !compared(o) {
			continue
		}
		lat, p95, p99 := int64(MinSamples), int64(MinSamplesP95), int64(MinSamplesP99)
		if o.Kind == result.KindWait {
			lat, p95, p99 = MinSamplesWait, max(p95, MinSamplesWait), max(p99, MinSamplesWait)
		}
		if (o.Kind.IsTxn() || o.Kind == result.KindPhase) && r.MeasuredS > 0 {
			vs = append(vs, value{op: o.Name, kind: o.Kind, metric: "ops/s", family: FamThroughput, unit: UnitRate, higher: true,
				v: float64(o.Count) / r.MeasuredS, n: o.Count, min: MinSamples, drift: drift,
				series: rateSeries(r, func(io result.IntervalOp) bool { return io.Name == o.Name && io.Kind == o.Kind })})
		}
		lv := func(metric string, fam Family, v float64, min int64, of func(metrics.Summary) float64) value {
			x := value{op: o.Name, kind: o.Kind, metric: metric, family: fam, unit: UnitMS, floor: LatencyFloorMS, v: v, n: o.Count, min: min, drift: drift}
			if of != nil {
				x.series = latencySeries(r, o, of)
			}
			return x
		}
		vs = append(vs, lv("mean ms", FamMean, o.Mean, lat, func(s metrics.Summary) float64 { return s.Mean }),
			lv("p50 ms", FamMean, o.P50, lat, func(s metrics.Summary) float64 { return s.P50 }),
			lv("p95 ms", FamP95, o.P95, p95, func(s metrics.Summary) float64 { return s.P95 }),
			lv("p99 ms", FamP99, o.P99, p99, func(s metrics.Summary) float64 { return s.P99 }))
		if o.ServerMS > 0 {
			// Its mean is carried by rare slow executions, like a tail:
			// judged from as many ops as p99 is.
			vs = append(vs, lv("server ms", FamServer, o.ServerMS, p99, nil))
		}
		if o.Kind != result.KindCycle && o.Kind != result.KindPhase { // a phase does not fail: its transactions do
			errs := o.ErrorCount()
			if attempts := o.Count + errs; attempts > 0 {
				vs = append(vs, value{op: o.Name, metric: "errors", family: FamErrors, unit: UnitRatio, floor: ErrorRateFloor,
					v: float64(errs) / float64(attempts), n: attempts, min: MinSamples})
			}
		}
	}
	if t := r.Telemetry; t != nil && len(t.Database) > 0 && txns > 0 {
		for _, c := range databaseCounters {
			n, ok := t.Database[c.key]
			if !ok {
				continue
			}
			floor := float64(CountPerTxnFloor)
			if c.unit == UnitBytes {
				floor = BytesPerTxnFloor
			}
			vs = append(vs, value{op: "db", metric: c.label, family: FamDatabase, unit: c.unit, floor: floor,
				v: float64(n) / float64(txns), n: txns, min: MinSamples, drift: drift})
		}
	}
	if ch := r.Check(); ch.NotChecked == "" { // a run that verified nothing has no invariants to compare
		ok := 0.0
		if ch.OK {
			ok = 1
		}
		vs = append(vs, value{metric: "invariants", family: FamInvariants, unit: UnitOK, higher: true, v: ok, n: 1})
	}
	return vs
}

// unitValues are a unit's metrics: with several repetitions, each is the
// median of the repetitions (the invariants the worst of them), counted
// over the fewest samples, with its spread across them.
func unitValues(rs []*result.Result) []value {
	if len(rs) == 1 {
		return values(rs[0])
	}
	var order []string
	byKey := map[string][]value{}
	for _, r := range rs {
		for _, v := range values(r) {
			k := v.key()
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], v)
		}
	}
	out := make([]value, 0, len(order))
	for _, k := range order {
		vs := byKey[k]
		m := vs[0]
		xs, drifts := make([]float64, len(vs)), make([]float64, len(vs))
		for i, v := range vs {
			xs[i], drifts[i] = v.v, v.drift
			m.n = min(m.n, v.n)
		}
		m.series, m.drift, m.reps = nil, stats.Median(drifts), xs
		if m.family == FamInvariants {
			m.v = slices.Min(xs)
		} else {
			m.v = metrics.Median(xs)
			if m.v != 0 && len(xs) > 1 {
				m.spread = 100 * (slices.Max(xs) - slices.Min(xs)) / math.Abs(m.v)
			}
		}
		out = append(out, m)
	}
	return out
}

// errorClasses counts each op's errors by class over the repetitions.
func errorClasses(rs []*result.Result) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, r := range rs {
		for _, o := range r.Ops {
			for class, n := range o.Errors {
				if n == 0 {
					continue
				}
				if out[o.Name] == nil {
					out[o.Name] = map[string]int64{}
				}
				out[o.Name][class] += n
			}
		}
	}
	return out
}
