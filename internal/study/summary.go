package study

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
)

// Format identifies a study document.
const Format = "txnbench-study/1"

// Summary is a whole study: what was varied and, per cell, the medians of
// its repetitions. It is saved as study.json beside one result per run.
type Summary struct {
	Format   string        `json:"format"`
	Workload string        `json:"workload"`
	Args     []string      `json:"args"` // the study's command line, passwords masked
	Vary     []Vary        `json:"vary"`
	Repeat   int           `json:"repeat"`
	Cells    []CellSummary `json:"cells"`
	// Compare is what the changes compare (--compare; "" is axis), and
	// Comparisons what they found (compare.go).
	Compare     CompareMode  `json:"compare,omitempty"`
	Comparisons *Comparisons `json:"comparisons,omitempty"`
}

// CellSummary is one cell's medians across its repetitions.
type CellSummary struct {
	Label    string    `json:"label"`
	Settings []Setting `json:"settings"`
	// Shown is Cell.Shown: how the label names a setting's value.
	Shown   map[string]string `json:"shown,omitempty"`
	Results []string          `json:"results"` // result files, one per repetition
	Ops     []OpStats         `json:"ops"`
	// TxnPerS is transactions per second (all ops that are transactions).
	TxnPerS      float64 `json:"txn_per_s"`
	InvariantsOK bool    `json:"invariants_ok"`
	// InvariantsNotChecked says why a run of the cell verified nothing
	// (then InvariantsOK is false, but nothing was found broken either).
	InvariantsNotChecked string `json:"invariants_not_checked,omitempty"`
	// Anomalies is the isolation checker's findings over the cell's
	// repetitions (list-append, rw-register), their counts summed.
	Anomalies *result.Anomalies `json:"anomalies,omitempty"`
	// Retries is the transactions' retries in the measured window
	// (median).
	Retries float64 `json:"retries"`
	Server  string  `json:"server"`
	// The client's own cost: CPU and heap allocated per transaction, peak
	// memory (medians).
	ClientCPUPerTxnMS float64 `json:"client_cpu_per_txn_ms"`
	AllocPerTxnKB     float64 `json:"alloc_per_txn_kb"`
	PeakMB            float64 `json:"peak_mb"`
	// Reps is what each repetition measured, in run order (compare.go).
	Reps []RepStats `json:"reps,omitempty"`
	// Txn is the cell's transactions (all ops that are transactions)
	// as one row, their histograms merged per run; Clients and
	// DurationS (the measured window, median) go with it.
	Txn       OpStats `json:"transactions"`
	Clients   int     `json:"clients"`
	DurationS float64 `json:"duration_s"`
	// Unit names what one cycle is when the workload counts its cycles
	// (result.Result.CycleUnit: "workflows"); the summary then counts
	// them, with the transactions in their own column.
	Unit string `json:"unit,omitempty"`
	// Database is the median change of each of result.DeltaCounters
	// over the window; absent without database telemetry.
	Database map[string]float64 `json:"database,omitempty"`
	// Commits is the server's commits beside the clients' transactions
	// (result.Commits) of the repetition with the median commits (the
	// lower middle one of an even number), so that its parts add up.
	Commits *result.Commits `json:"commits,omitempty"`
	// TopWait is the wait event the cell's sessions were seen in most,
	// over all its runs, and TopWaitShare its share of the samples.
	TopWait      string  `json:"top_wait,omitempty"`
	TopWaitShare float64 `json:"top_wait_share,omitempty"`
	// Faults are the injected faults and what followed them (--fault).
	Faults []FaultRecovery `json:"faults,omitempty"`
	// Behind is the repetition whose --rate schedule fell furthest behind
	// (result.ScheduleBehind), BehindRuns how many did; nil when all kept up.
	Behind     *result.Behind `json:"behind_schedule,omitempty"`
	BehindRuns int            `json:"behind_runs,omitempty"`
	// Limits are what bound the cell's runs, as each stored it
	// (result.Result.LimitedBy), with how many runs each bound.
	Limits []CellLimit `json:"limited_by,omitempty"`
	// Network is the cell's shaped network (cellNetwork): asked, and the
	// median of its runs' round trips during the window and proxy CPU.
	Network *result.Network `json:"network,omitempty"`
	// StalledRuns counts the repetitions that stalled (result.Stall: no op
	// completed in the window's last result.StallAfter), Stalled the
	// longest such stall.
	StalledRuns int           `json:"stalled_runs,omitempty"`
	Stalled     *result.Stall `json:"stalled,omitempty"`
}

// LeftOut says why the cell is left out of the comparisons ("" when it
// is not): a repetition stalled, or the cell completed no transaction.
// Its figures are what waiting clients and a stopped server measured, not
// its setup's.
func (c CellSummary) LeftOut() string {
	switch {
	case c.StalledRuns > 0:
		return fmt.Sprintf("stalled in %d of %d runs (no op completed after %.1f s of the window, %d clients waiting): its figures are what waiting clients measured, not its setup's",
			c.StalledRuns, max(len(c.Reps), c.StalledRuns), c.Stalled.SinceS, c.Stalled.Clients)
	case len(c.Reps) > 0 && !slices.ContainsFunc(c.Reps, func(r RepStats) bool { return r.TxnPerS > 0 }):
		return "empty: no transaction completed in the window of any run"
	}
	return ""
}

// Invariants is the cell's check over its repetitions, without the
// items: its Status and Violated are what reports and exit statuses use.
func (c CellSummary) Invariants() *result.Check {
	return &result.Check{OK: c.InvariantsOK, NotChecked: c.InvariantsNotChecked}
}

// OpStats is one op's medians across repetitions; Spread is the range of
// its mean latency across repetitions relative to their median, in %.
type OpStats struct {
	Name    string      `json:"name"`
	Kind    result.Kind `json:"kind,omitzero"`
	Count   float64     `json:"count"` // completed in the window (median)
	OpsPerS float64     `json:"ops_per_s"`
	Mean    float64     `json:"mean_ms"`
	P50     float64     `json:"p50_ms"`
	P90     float64     `json:"p90_ms"`
	P95     float64     `json:"p95_ms"`
	P99     float64     `json:"p99_ms"`
	Max     float64     `json:"max_ms"`
	Errors  float64     `json:"errors"` // median count
	// ErrorClasses is the median count of each error class (a run
	// without the class counts 0), on a cell's transactions row.
	ErrorClasses map[string]float64 `json:"error_classes,omitempty"`
	Spread       float64            `json:"spread_pct"`
	// Reps are each repetition's value of the metrics the comparisons
	// compare (mean_ms, p50_ms, p95_ms, p99_ms, ops_per_s), in run order:
	// what their intervals come from.
	Reps map[string][]float64 `json:"reps,omitempty"`
}

// Summarise reduces a cell's repetitions to medians.
func Summarise(c Cell, rs []*result.Result, files []string) CellSummary {
	cs := CellSummary{Label: c.Label(), Settings: c.Settings, Shown: c.Shown, Results: files, InvariantsOK: true}
	if len(rs) == 0 {
		return cs
	}
	inv := result.Check{OK: true}
	for _, r := range rs {
		inv.Merge(r.Check())
	}
	cs.InvariantsOK, cs.InvariantsNotChecked, cs.Anomalies = inv.OK, inv.NotChecked, inv.Anomalies
	cs.Retries = median(rs, func(r *result.Result) (float64, bool) { return float64(r.TxnRetries()), true })
	cs.Server = rs[0].Server.Dialect + " " + rs[0].Server.Version
	cs.Reps = repStats(rs)
	var txn, cpu, alloc, peak []float64
	for _, r := range rs {
		n, _ := r.Transactions()
		if r.MeasuredS > 0 {
			txn = append(txn, r.TxnPerS())
		}
		if n > 0 {
			cpu = append(cpu, (r.Client.CPUUserS+r.Client.CPUSysS)*1000/float64(n))
		}
		alloc = append(alloc, r.Client.AllocPerTxnKB)
		peak = append(peak, r.Client.MaxRSSMB)
	}
	cs.TxnPerS = metrics.Median(txn)
	cs.ClientCPUPerTxnMS, cs.AllocPerTxnKB, cs.PeakMB = metrics.Median(cpu), metrics.Median(alloc), metrics.Median(peak)
	cs.Faults = faultRecoveries(rs)
	for _, r := range rs {
		if b := r.FellBehind(); b != nil {
			cs.BehindRuns++
			if cs.Behind == nil || b.AchievedPerS/b.RatePerS < cs.Behind.AchievedPerS/cs.Behind.RatePerS {
				cs.Behind = b
			}
		}
	}
	for _, r := range rs {
		if st := r.Stalled; st != nil {
			cs.StalledRuns++
			if cs.Stalled == nil || st.SinceS < cs.Stalled.SinceS {
				cs.Stalled = st
			}
		}
	}
	for _, o := range rs[0].Ops {
		cs.Ops = append(cs.Ops, medianStats(o.Name, o.Kind, rs, func(r *result.Result) (metrics.Summary, int64, bool) {
			if ro := r.OpOf(o.Name, o.Kind); ro != nil {
				return ro.Summary, ro.ErrorCount(), true
			}
			return metrics.Summary{}, 0, false
		}))
	}
	cs.Txn = medianStats(TxnRow, result.KindTxn, rs, func(r *result.Result) (metrics.Summary, int64, bool) {
		_, failed := r.Transactions()
		return r.TxnSummary(), failed, true
	})
	cs.Txn.ErrorClasses = txnErrorClasses(rs)
	cs.Clients, cs.Unit = rs[0].Config.Clients, rs[0].CycleUnit
	cs.DurationS = median(rs, func(r *result.Result) (float64, bool) { return r.MeasuredS, true })
	for _, k := range result.DeltaCounters {
		v := func(r *result.Result) (float64, bool) {
			if r.Telemetry == nil {
				return 0, false
			}
			n, ok := r.Telemetry.Database[k]
			return float64(n), ok
		}
		if _, ok := v(rs[0]); ok {
			if cs.Database == nil {
				cs.Database = map[string]float64{}
			}
			cs.Database[k] = median(rs, v)
		}
	}
	cs.Commits = medianCommits(rs)
	cs.TopWait, cs.TopWaitShare = result.TopWait(rs...)
	cs.Limits, cs.Network = cellLimits(rs), cellNetwork(rs)
	return cs
}

// medianCommits is the commits of the run among rs with the median
// commits (result.MedianCommits); nil without database telemetry.
func medianCommits(rs []*result.Result) *result.Commits {
	var cs []result.Commits
	for _, r := range rs {
		if c, ok := r.ServerCommits(); ok {
			cs = append(cs, c)
		}
	}
	return result.MedianCommits(cs)
}

// txnErrorClasses is the median count of each error class of the
// transactions across the runs rs (nil when none failed).
func txnErrorClasses(rs []*result.Result) map[string]float64 {
	per := make([]map[string]int64, len(rs))
	names := map[string]bool{}
	for i, r := range rs {
		per[i] = map[string]int64{}
		for _, o := range r.Ops {
			if !o.Kind.IsTxn() {
				continue
			}
			for k, n := range o.Errors {
				per[i][k] += n
				names[k] = true
			}
		}
	}
	var out map[string]float64
	for k := range names {
		xs := make([]float64, len(rs))
		for i := range rs {
			xs[i] = float64(per[i][k])
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[k] = metrics.Median(xs)
	}
	return out
}

// TxnRow names a cell's row of all its transactions (CellSummary.Txn).
const TxnRow = "transactions"

// medianStats is one row's medians across the repetitions rs: row gives
// a run's statistics and errors, false when the run lacks the row.
func medianStats(name string, kind result.Kind, rs []*result.Result, row func(*result.Result) (metrics.Summary, int64, bool)) OpStats {
	var count, rate, mean, p50, p90, p95, p99, mx, errs []float64
	for _, r := range rs {
		s, e, ok := row(r)
		if !ok {
			continue
		}
		if r.MeasuredS > 0 {
			rate = append(rate, float64(s.Count)/r.MeasuredS)
		}
		count, mean, p50 = append(count, float64(s.Count)), append(mean, s.Mean), append(p50, s.P50)
		p90, p95, p99, mx = append(p90, s.P90), append(p95, s.P95), append(p99, s.P99), append(mx, s.Max)
		errs = append(errs, float64(e))
	}
	st := OpStats{Name: name, Kind: kind, Count: metrics.Median(count), OpsPerS: metrics.Median(rate), Mean: metrics.Median(mean),
		P50: metrics.Median(p50), P90: metrics.Median(p90), P95: metrics.Median(p95), P99: metrics.Median(p99), Max: metrics.Median(mx),
		Errors: metrics.Median(errs)}
	if m := metrics.Median(mean); m > 0 && len(mean) > 1 {
		st.Spread = 100 * (slices.Max(mean) - slices.Min(mean)) / m
	}
	if len(rs) > 1 {
		st.Reps = map[string][]float64{"mean_ms": mean, "p50_ms": p50, "p95_ms": p95, "p99_ms": p99, "ops_per_s": rate}
	}
	return st
}

// median is the median of v over the runs that have it.
func median(rs []*result.Result, v func(*result.Result) (float64, bool)) float64 {
	var xs []float64
	for _, r := range rs {
		if x, ok := v(r); ok {
			xs = append(xs, x)
		}
	}
	return metrics.Median(xs)
}

// AllOps are the ops of every cell, each once, in the order cells first
// have them: a pool cell's pool_wait, or the connect of a cell after a
// first one that has none (an embedded database), get their tables too.
func (s *Summary) AllOps() []OpStats {
	var out []OpStats
	seen := map[string]bool{}
	for _, c := range s.Cells {
		for _, o := range c.Ops {
			kind := o.Kind
			if kind.IsTxn() {
				kind = result.KindTxn
			}
			if k := o.Name + "\x00" + string(kind); !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	return out
}

// OpOf is the cell's op named name of kind kind, nil if none.
func (cs CellSummary) OpOf(name string, kind result.Kind) *OpStats {
	for i := range cs.Ops {
		if o := &cs.Ops[i]; o.Name == name && (o.Kind == kind || o.Kind.IsTxn() && kind.IsTxn()) {
			return o
		}
	}
	return nil
}

// Op is the cell's op named name, nil if none.
func (cs CellSummary) Op(name string) *OpStats {
	for i := range cs.Ops {
		if cs.Ops[i].Name == name {
			return &cs.Ops[i]
		}
	}
	return nil
}

// Change describes b against a: "-89% (0.11x)"; "" when a is zero.
func Change(a, b float64) string {
	if a == 0 {
		return ""
	}
	return fmt.Sprintf("%+.0f%% (%s)", 100*(b-a)/a, texttable.Ratio(b/a))
}

// Ladder is throughput against client count for cells that differ only in
// clients.
type Ladder struct {
	Others string // the other settings of this ladder's cells
	Steps  []LadderStep
	// Knee is the index of the first step whose gain over the step
	// before is surely under KneeGain%: its 95% interval, from the
	// repetitions paired with the step before's, lies below it
	// (RungStops); -1 if none.
	Knee int
}

// KneeGain is the growth in % of throughput over the previous rung below
// which a ladder's throughput has stopped growing.
const KneeGain = 5.0

// LadderStep is one rung.
type LadderStep struct {
	Clients  int
	TxnPerS  float64
	CycleP99 float64
	// GainMin and GainMax are the lowest and highest growth in % of a
	// repetition's throughput over the same repetition on the previous
	// rung; Paired counts the repetitions compared (0 on the first rung,
	// or when the study did not record its repetitions).
	GainMin, GainMax float64
	Paired           int
	// Gain is the mean growth in % over the previous rung of the
	// repetitions paired (on their logarithms), GainLow and GainHigh its
	// 95% interval, and Verdict what it says against KneeGain: RungGrows,
	// RungStops, RungSame (~) or RungUnknown (?); "" on the first rung.
	Gain, GainLow, GainHigh float64
	Verdict                 string
	reps                    []RepStats
}

// Ladders builds one ladder per combination of the other settings when
// clients is varied.
func Ladders(s *Summary) []Ladder {
	byOthers := map[string]*Ladder{}
	var order []string
	for _, c := range s.Cells {
		if c.LeftOut() != "" {
			continue // its throughput is no rung's
		}
		var clients int
		var others []string
		found := false
		for _, st := range c.Settings {
			if st.Key == "clients" {
				n, err := strconv.Atoi(st.Value)
				if err != nil {
					return nil
				}
				clients, found = n, true
			} else {
				others = append(others, st.Key+"="+st.Value)
			}
		}
		if !found {
			return nil
		}
		key := strings.Join(others, " ")
		l, ok := byOthers[key]
		if !ok {
			l = &Ladder{Others: key}
			byOthers[key] = l
			order = append(order, key)
		}
		step := LadderStep{Clients: clients, TxnPerS: c.TxnPerS, reps: c.Reps}
		if cy := c.Op(result.CycleOp); cy != nil {
			step.CycleP99 = cy.P99
		}
		l.Steps = append(l.Steps, step)
	}
	var out []Ladder
	for _, k := range order {
		l := byOthers[k]
		sort.Slice(l.Steps, func(i, j int) bool { return l.Steps[i].Clients < l.Steps[j].Clients })
		l.Knee = -1
		for i := 1; i < len(l.Steps); i++ {
			st := &l.Steps[i]
			prev := l.Steps[i-1].reps
			for r := 0; r < min(len(prev), len(st.reps)); r++ {
				if prev[r].TxnPerS <= 0 {
					continue
				}
				g := 100 * (st.reps[r].TxnPerS - prev[r].TxnPerS) / prev[r].TxnPerS
				if st.Paired == 0 || g < st.GainMin {
					st.GainMin = g
				}
				if st.Paired == 0 || g > st.GainMax {
					st.GainMax = g
				}
				st.Paired++
			}
			rungGain(st, prev)
			if l.Knee < 0 && st.Verdict == RungStops {
				l.Knee = i
			}
		}
		out = append(out, *l)
	}
	return out
}

// Stalls says whether step i grew less than KneeGain% over the step
// before, by the medians or in some repetition: a knee if all agree.
func (l Ladder) Stalls(i int) bool {
	st, prev := l.Steps[i], l.Steps[i-1].TxnPerS
	return prev > 0 && st.TxnPerS < prev*(1+KneeGain/100) || st.Paired > 0 && st.GainMin < KneeGain
}

// Note says in one sentence where throughput stops growing, or why no
// knee is established: the first rung whose gain the repetitions cannot
// tell from the threshold (~), or that stalled on one repetition or
// without repetitions recorded.
func (l Ladder) Note() string {
	if l.Knee >= 0 {
		st := l.Steps[l.Knee]
		return fmt.Sprintf("Throughput stops growing at %d clients: %+.0f%% over %d clients (95%% interval %+.0f%% to %+.0f%%, from %d paired repetitions), under %.0f%%.", st.Clients, st.Gain, l.Steps[l.Knee-1].Clients, st.GainLow, st.GainHigh, st.Paired, KneeGain)
	}
	for i := 1; i < len(l.Steps); i++ {
		switch st := l.Steps[i]; {
		case st.Verdict == RungSame:
			return fmt.Sprintf("Knee not established: at %d clients the gain's 95%% interval, %+.0f%% to %+.0f%% from %d paired repetitions, holds the %.0f%% threshold (~: the repetitions cannot tell whether throughput still grows; more --repeat narrows it).", st.Clients, st.GainLow, st.GainHigh, st.Paired, KneeGain)
		case !l.Stalls(i) || st.Paired > 1:
		case st.Paired == 1:
			return fmt.Sprintf("One repetition: knee not established (%d clients gained %+.0f%%); run with --repeat 3 to see whether repetitions agree.", st.Clients, st.GainMin)
		default:
			return fmt.Sprintf("Knee not established: growth stalls at %d clients, but this study.json does not record its repetitions.", st.Clients)
		}
	}
	return ""
}

// Measured reports whether o has latencies: something completed (a
// summary from before counts were kept has a mean).
func (o OpStats) Measured() bool { return o.Count > 0 || o.Mean != 0 || o.Max != 0 }
