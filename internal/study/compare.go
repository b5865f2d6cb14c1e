package study

import (
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/stats"
)

// CompareMode is what a study's changes are computed against.
type CompareMode string

// The modes of --compare. The zero mode is CompareAxis.
const (
	// CompareAxis compares the neighbouring values of every varied
	// setting, the other settings held.
	CompareAxis CompareMode = "axis"
	// CompareFirst compares every cell with the first cell.
	CompareFirst CompareMode = "first"
	// CompareNone prints the cells without comparing them.
	CompareNone CompareMode = "none"
)

// ParseCompare reads a --compare value.
func ParseCompare(s string) (CompareMode, error) {
	switch m := CompareMode(s); m {
	case CompareAxis, CompareFirst, CompareNone:
		return m, nil
	}
	return "", fmt.Errorf("--compare %q: choose axis (neighbouring values of each varied setting), first (every cell against the first) or none", s)
}

// Mode is s's compare mode; a study.json from before --compare compares
// along the axes.
func (s *Summary) Mode() CompareMode {
	if s.Compare == "" {
		return CompareAxis
	}
	return s.Compare
}

// RepStats is what one repetition of a cell measured, for the comparisons
// that need more than the medians: the knee's agreement, the fixed work.
type RepStats struct {
	TxnPerS    float64 `json:"txn_per_s"`
	MeasuredS  float64 `json:"measured_s"`
	Iterations int64   `json:"iterations,omitempty"` // cycles of a fixed amount of work (--iterations)
}

// repStats lists each repetition's throughput and window, in run order.
func repStats(rs []*result.Result) []RepStats {
	out := make([]RepStats, len(rs))
	for i, r := range rs {
		out[i] = RepStats{TxnPerS: r.TxnPerS(), MeasuredS: r.MeasuredS, Iterations: r.Config.Iterations}
	}
	return out
}

// Comparisons is what a study derives from its cells beyond the cells
// themselves: changes along each varied setting, the wall time of a fixed
// amount of work, and the cost of connecting per transaction.
type Comparisons struct {
	Axes      []AxisTable       `json:"axes,omitempty"`
	FixedWork []WallTime        `json:"fixed_work,omitempty"`
	Connect   []ConnectOverhead `json:"connect_overhead,omitempty"`
	// LeftOut are the cells no comparison includes, with why
	// (CellSummary.LeftOut).
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// Decisions counts the axis tables' verdicts (DecisionLine says them).
	Decisions Decisions `json:"decisions"`
	axes      []string  // the varied settings, in order: the fixed work's columns
}

// LeftOut is a cell left out of the comparisons.
type LeftOut struct {
	Cell string `json:"cell"`
	Why  string `json:"why"`
}

// Varied are the study's varied settings, in order: the fixed work's
// columns.
func (c *Comparisons) Varied() []string { return c.axes }

// AxisTable compares the cells that differ only in the setting Axis, in
// the order of its values.
type AxisTable struct {
	Axis   string    `json:"axis"`
	Held   []Setting `json:"held,omitempty"` // the other settings, the same in every cell
	Values []string  `json:"values"`         // Axis's values that have a cell
	Rows   []AxisRow `json:"rows"`
}

// AxisRow is one metric of one op at each value of the axis.
type AxisRow struct {
	Op     string    `json:"op"`
	Metric string    `json:"metric"` // mean_ms, p50_ms, p95_ms, p99_ms or ops_per_s
	Values []float64 `json:"values"`
	// ChangePct[i] is the change from Values[i] to Values[i+1] in % of
	// Values[i], as Change prints it; null when Values[i] is 0.
	ChangePct []*float64 `json:"change_pct"`
	// Stats[i] is how sure ChangePct[i] is, from the two cells'
	// repetitions; null for a count (errors) or a change from 0.
	Stats []*PairStats `json:"stats,omitempty"`
}

// PairStats is how sure a change between two cells is: the 95% interval
// of the change in % and the p of no change (stats.Compare of the cells'
// repetitions, centred on their medians), and the verdict: better, worse,
// ~ (not significant) or ? (a cell of one repetition: the noise is
// unknown).
type PairStats struct {
	Verdict string  `json:"verdict"`
	LowPct  float64 `json:"low_pct,omitempty"`
	HighPct float64 `json:"high_pct,omitempty"`
	P       float64 `json:"p,omitempty"`
	Reps    [2]int  `json:"reps"` // the repetitions of each cell
}

// pairStats compares metric m of two cells' op statistics.
func pairStats(m string, a, b OpStats) *PairStats {
	if m == "errors" {
		return nil
	}
	ra, rb := a.Reps[m], b.Reps[m]
	if len(ra) == 0 {
		ra = []float64{axisGet(m, a)}
	}
	if len(rb) == 0 {
		rb = []float64{axisGet(m, b)}
	}
	r := stats.Compare(stats.Sample{Values: ra}, stats.Sample{Values: rb}, axisGet(m, a), axisGet(m, b))
	if r.Ratio == 0 {
		return nil
	}
	ps := &PairStats{Verdict: r.Verdict(m == "ops_per_s"), Reps: [2]int{len(ra), len(rb)}}
	if r.Known {
		ps.LowPct, ps.HighPct = math.Round(1000*(r.Low-1))/10, math.Round(1000*(r.High-1))/10
		ps.P = math.Round(r.P*1000) / 1000
	}
	return ps
}

// axisGet is metric m of o.
func axisGet(m string, o OpStats) float64 {
	for _, x := range axisMetrics {
		if x.name == m {
			return x.get(o)
		}
	}
	return 0
}

// WallTime is how long a cell took for its fixed work (--iterations):
// the median of its repetitions' measured windows.
type WallTime struct {
	Cell   string      `json:"cell"`
	Cycles int64       `json:"cycles"`
	WallS  float64     `json:"wall_s"`
	Vs     []WallRatio `json:"vs,omitempty"`
}

// WallRatio is a wall time against another cell's: the previous value of
// Axis with the other settings held, or the first cell when Axis is "".
type WallRatio struct {
	Axis    string  `json:"axis,omitempty"`
	Against string  `json:"against"` // the other cell's label
	Ratio   float64 `json:"ratio"`   // this wall time / the other's
}

// ConnectOverhead is what connecting per transaction costs one op: a
// per-txn cell against a cell with the same other settings whose clients
// keep their connections (conn=pool or session).
type ConnectOverhead struct {
	Held     []Setting `json:"held,omitempty"` // the other settings (e.g. query=select1)
	Pooled   string    `json:"pooled"`         // the other cell's conn
	Op       string    `json:"op"`
	PerTxnMS float64   `json:"per_txn_mean_ms"`
	PooledMS float64   `json:"pooled_mean_ms"`
	// Speedup is per-txn latency / pooled latency (mean, and p50).
	Speedup    float64 `json:"speedup"`
	SpeedupP50 float64 `json:"speedup_p50"`
	// ConnectPct is connecting's share of a per-txn op's time by
	// difference: (per-txn - pooled) / per-txn mean, in %.
	ConnectPct float64 `json:"connect_pct"`
	// ConnectTimePct is seed 001's connect share, measured in the per-txn
	// cell alone: connect time / (connect time + query time) per
	// transaction, that is the mean of its connect wait over the op's
	// mean (which includes the connect), in %; 0 when the cell has no
	// connect row.
	ConnectTimePct float64 `json:"connect_time_pct,omitempty"`
}

// connectWait names the wait row of getting a new connection (a
// connector's WaitName), measured per connect.
const connectWait = "connect"

// metric is one column of OpStats an axis compares.
type metric struct {
	name, label string
	get         func(OpStats) float64
}

var axisMetrics = []metric{
	{"mean_ms", "mean (ms)", func(o OpStats) float64 { return o.Mean }},
	{"p50_ms", "p50 (ms)", func(o OpStats) float64 { return o.P50 }},
	{"p95_ms", "p95 (ms)", func(o OpStats) float64 { return o.P95 }},
	{"p99_ms", "p99 (ms)", func(o OpStats) float64 { return o.P99 }},
	{"ops_per_s", "ops/s", func(o OpStats) float64 { return o.OpsPerS }},
	{"errors", "errors", func(o OpStats) float64 { return o.Errors }},
}

// Compare computes s's comparisons for its compare mode; nil with
// CompareNone.
func Compare(s *Summary) *Comparisons {
	if s.Mode() == CompareNone {
		return nil
	}
	c := &Comparisons{FixedWork: fixedWork(s), Connect: connectOverhead(s), axes: axes(s)}
	for _, cell := range s.Cells {
		if why := cell.LeftOut(); why != "" {
			c.LeftOut = append(c.LeftOut, LeftOut{Cell: cell.Label, Why: why})
		}
	}
	if s.Mode() == CompareAxis {
		for _, key := range axes(s) {
			for _, g := range neighbours(s, key) {
				if t := axisTable(key, g); len(t.Rows) > 0 {
					c.Axes = append(c.Axes, t)
				}
			}
		}
	}
	c.Decisions = decisions(c)
	return c
}

// axes are the varied settings, in the order of the cells' settings.
func axes(s *Summary) []string {
	var keys []string
	if len(s.Cells) > 0 {
		for _, st := range s.Cells[0].Settings {
			keys = append(keys, st.Key)
		}
	}
	return keys
}

// group is the cells that differ only in one setting, in study order.
type group struct {
	held   []Setting
	values []string
	cells  []*CellSummary
}

// neighbours groups s's cells by every setting but key; only groups of
// two or more cells compare anything.
func neighbours(s *Summary, key string) []group {
	var out []group
	index := map[string]int{}
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.LeftOut() != "" {
			continue
		}
		var held []Setting
		value, found := "", false
		for _, st := range c.Settings {
			if st.Key == key {
				value, found = st.Value, true
				if sh, ok := c.Shown[key]; ok {
					value = sh
				}
			} else {
				held = append(held, st)
			}
		}
		if !found {
			continue
		}
		id := Cell{Settings: held}.Label()
		j, ok := index[id]
		if !ok {
			j = len(out)
			index[id] = j
			out = append(out, group{held: held})
		}
		out[j].values = append(out[j].values, value)
		out[j].cells = append(out[j].cells, c)
	}
	var multi []group
	for _, g := range out {
		if len(g.cells) >= 2 {
			multi = append(multi, g)
		}
	}
	return multi
}

// axisTable compares a group's neighbouring cells on every transaction,
// the cycle and the waits for a connection (connect, pool_wait) that all
// of them measured.
func axisTable(key string, g group) AxisTable {
	t := AxisTable{Axis: key, Held: g.held, Values: g.values}
	for _, o := range g.cells[0].Ops {
		if !o.Kind.IsTxn() && o.Kind != result.KindCycle && o.Kind != result.KindWait {
			continue
		}
		stats := make([]OpStats, len(g.cells))
		all := true
		for i, c := range g.cells {
			st := c.Op(o.Name)
			if st == nil {
				all = false
				break
			}
			stats[i] = *st
		}
		if !all {
			continue
		}
		for _, m := range axisMetrics {
			row := AxisRow{Op: o.Name, Metric: m.name}
			for i, st := range stats {
				row.Values = append(row.Values, m.get(st))
				if i > 0 {
					row.ChangePct = append(row.ChangePct, changePct(row.Values[i-1], row.Values[i]))
					row.Stats = append(row.Stats, pairStats(m.name, stats[i-1], st))
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// changePct is b against a in % of a, nil when a is zero.
func changePct(a, b float64) *float64 {
	if a == 0 {
		return nil
	}
	p := 100 * (b - a) / a
	return &p
}

// fixedWork lists the wall time of every cell that ran a fixed number of
// cycles, against its neighbours along each axis (or against the first
// cell with CompareFirst).
func fixedWork(s *Summary) []WallTime {
	wall := map[*CellSummary]float64{}
	var out []WallTime
	for i := range s.Cells {
		c := &s.Cells[i]
		if len(c.Reps) == 0 || c.Reps[0].Iterations == 0 || c.LeftOut() != "" {
			continue
		}
		var ws []float64
		for _, r := range c.Reps {
			ws = append(ws, r.MeasuredS)
		}
		wall[c] = metrics.Median(ws)
	}
	if len(wall) == 0 {
		return nil
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		w, ok := wall[c]
		if !ok {
			continue
		}
		wt := WallTime{Cell: c.Label, Cycles: c.Reps[0].Iterations, WallS: w}
		if s.Mode() == CompareFirst {
			if f, ok := wall[&s.Cells[0]]; ok && i > 0 && f > 0 {
				wt.Vs = append(wt.Vs, WallRatio{Against: s.Cells[0].Label, Ratio: w / f})
			}
		} else {
			for _, key := range axes(s) {
				for _, g := range neighbours(s, key) {
					for j := 1; j < len(g.cells); j++ {
						if g.cells[j] != c {
							continue
						}
						if p, ok := wall[g.cells[j-1]]; ok && p > 0 {
							wt.Vs = append(wt.Vs, WallRatio{Axis: key, Against: g.cells[j-1].Label, Ratio: w / p})
						}
					}
				}
			}
		}
		out = append(out, wt)
	}
	return out
}

// perTxn is the conn that opens a connection for every transaction.
const perTxn = "per-txn"

// connectOverhead compares every per-txn cell with its neighbours along
// conn whose clients keep their connections, on each transaction.
func connectOverhead(s *Summary) []ConnectOverhead {
	var out []ConnectOverhead
	for _, g := range neighbours(s, "conn") {
		base := -1
		for i, v := range g.values {
			if v == perTxn {
				base = i
			}
		}
		if base < 0 {
			continue
		}
		for i, pooled := range g.cells {
			if i == base {
				continue
			}
			for _, o := range g.cells[base].Ops {
				p := pooled.Op(o.Name)
				if !o.Kind.IsTxn() || p == nil || p.Mean <= 0 || o.Mean <= 0 {
					continue
				}
				co := ConnectOverhead{Held: g.held, Pooled: g.values[i], Op: o.Name, PerTxnMS: o.Mean, PooledMS: p.Mean,
					Speedup: o.Mean / p.Mean, ConnectPct: 100 * (o.Mean - p.Mean) / o.Mean}
				if p.P50 > 0 {
					co.SpeedupP50 = o.P50 / p.P50
				}
				if cw := g.cells[base].Op(connectWait); cw != nil && cw.Mean > 0 {
					co.ConnectTimePct = 100 * min(cw.Mean/o.Mean, 1)
				}
				out = append(out, co)
			}
		}
	}
	return out
}

// MetricLabel is how the tables name an axis row's metric ("mean (ms)").
func MetricLabel(name string) string {
	for _, m := range axisMetrics {
		if m.name == name {
			return m.label
		}
	}
	return name
}
