package study

import (
	"fmt"
	"io"
	"math"
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
}

// CellSummary is one cell's medians across its repetitions.
type CellSummary struct {
	Label    string    `json:"label"`
	Settings []Setting `json:"settings"`
	Results  []string  `json:"results"` // result files, one per repetition
	Ops      []OpStats `json:"ops"`
	// TxnPerS is transactions per second (all ops that are transactions).
	TxnPerS      float64 `json:"txn_per_s"`
	InvariantsOK bool    `json:"invariants_ok"`
	// InvariantsNotChecked says why a run of the cell verified nothing
	// (then InvariantsOK is false, but nothing was found broken either).
	InvariantsNotChecked string `json:"invariants_not_checked,omitempty"`
	Server               string `json:"server"`
	// The client's own cost: CPU and heap allocated per transaction, peak
	// memory (medians).
	ClientCPUPerTxnMS float64 `json:"client_cpu_per_txn_ms"`
	AllocPerTxnKB     float64 `json:"alloc_per_txn_kb"`
	PeakMB            float64 `json:"peak_mb"`
	// Faults are the injected faults and what followed them (--fault).
	Faults []FaultRecovery `json:"faults,omitempty"`
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
	OpsPerS float64     `json:"ops_per_s"`
	Mean    float64     `json:"mean_ms"`
	P50     float64     `json:"p50_ms"`
	P95     float64     `json:"p95_ms"`
	P99     float64     `json:"p99_ms"`
	Errors  float64     `json:"errors"` // median count
	Spread  float64     `json:"spread_pct"`
}

// Summarise reduces a cell's repetitions to medians.
func Summarise(c Cell, rs []*result.Result, files []string) CellSummary {
	cs := CellSummary{Label: c.Label(), Settings: c.Settings, Results: files, InvariantsOK: true}
	if len(rs) == 0 {
		return cs
	}
	inv := result.Check{OK: true}
	for _, r := range rs {
		inv.Merge(r.Check())
	}
	cs.InvariantsOK, cs.InvariantsNotChecked = inv.OK, inv.NotChecked
	cs.Server = rs[0].Server.Dialect + " " + rs[0].Server.Version
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
	for _, o := range rs[0].Ops {
		var rate, mean, p50, p95, p99, errs []float64
		for _, r := range rs {
			ro := r.Op(o.Name)
			if ro == nil {
				continue
			}
			if r.MeasuredS > 0 {
				rate = append(rate, float64(ro.Count)/r.MeasuredS)
			}
			mean, p50 = append(mean, ro.Mean), append(p50, ro.P50)
			p95, p99 = append(p95, ro.P95), append(p99, ro.P99)
			errs = append(errs, float64(ro.ErrorCount()))
		}
		st := OpStats{Name: o.Name, Kind: o.Kind, OpsPerS: metrics.Median(rate), Mean: metrics.Median(mean),
			P50: metrics.Median(p50), P95: metrics.Median(p95), P99: metrics.Median(p99), Errors: metrics.Median(errs)}
		if m := metrics.Median(mean); m > 0 && len(mean) > 1 {
			st.Spread = 100 * (slices.Max(mean) - slices.Min(mean)) / m
		}
		cs.Ops = append(cs.Ops, st)
	}
	return cs
}

func (cs CellSummary) op(name string) *OpStats {
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
	return fmt.Sprintf("%+.0f%% (%.2fx)", 100*(b-a)/a, b/a)
}

// Write renders the study as Markdown: what was compared, one table per
// op with every cell and its change against the first, and the ladder when
// clients vary. Markdown tables read well in a terminal too.
func Write(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "# txnbench study: %s\n\n", s.Workload)
	fmt.Fprintf(w, "`%s`\n\n", strings.Join(s.Args, " "))
	var varied []string
	for _, v := range s.Vary {
		varied = append(varied, v.Key+" = "+strings.Join(v.Values, ", "))
	}
	fmt.Fprintf(w, "%d cells (%s), %d repetition(s) each, interleaved; medians across repetitions, spread = range of the mean across repetitions.\n\n",
		len(s.Cells), strings.Join(varied, "; "), s.Repeat)
	bad := 0
	for _, c := range s.Cells {
		switch inv := c.Invariants(); {
		case inv.Violated():
			bad++
			fmt.Fprintf(w, "**invariants VIOLATED in cell %s**\n\n", c.Label)
		case inv.NotChecked != "":
			bad++
			fmt.Fprintf(w, "invariants: %s in cell %s\n\n", inv.Status(), c.Label)
		}
	}
	if bad == 0 {
		fmt.Fprintf(w, "invariants: OK in every run\n\n")
	}
	if len(s.Cells) == 0 {
		return
	}
	for _, o := range s.Cells[0].Ops {
		fmt.Fprintf(w, "## %s\n\n", o.Name)
		rows := [][]string{{"cell", "ops/s", "mean (ms)", "p50 (ms)", "p95 (ms)", "p99 (ms)", "errors", "spread", "mean vs first", "ops/s vs first"}}
		first := s.Cells[0].op(o.Name)
		for i, c := range s.Cells {
			st := c.op(o.Name)
			if st == nil {
				continue
			}
			vsMean, vsRate := "-", "-"
			if i > 0 && first != nil {
				vsMean, vsRate = Change(first.Mean, st.Mean), Change(first.OpsPerS, st.OpsPerS)
			}
			rows = append(rows, []string{c.Label, f1(st.OpsPerS), f2(st.Mean), f2(st.P50), f2(st.P95), f2(st.P99),
				strconv.FormatFloat(st.Errors, 'f', -1, 64), fmt.Sprintf("%.0f%%", st.Spread), vsMean, vsRate})
		}
		texttable.Write(w, texttable.Markdown, rows, 0)
	}
	fmt.Fprintf(w, "## client (txnbench's own cost)\n\n")
	rows := [][]string{{"cell", "txn/s", "CPU per txn (ms)", "allocated per txn (KB)", "peak memory (MB)", "txn/s vs first"}}
	for i, c := range s.Cells {
		vs := "-"
		if i > 0 {
			vs = Change(s.Cells[0].TxnPerS, c.TxnPerS)
		}
		rows = append(rows, []string{c.Label, f1(c.TxnPerS), fmt.Sprintf("%.3f", c.ClientCPUPerTxnMS), f1(c.AllocPerTxnKB), fmt.Sprintf("%.0f", c.PeakMB), vs})
	}
	texttable.Write(w, texttable.Markdown, rows, 0)
	writeRecovery(w, s)
	for _, l := range Ladders(s) {
		l.write(w)
	}
}

// Ladder is throughput against client count for cells that differ only in
// clients.
type Ladder struct {
	Others string // the other settings of this ladder's cells
	Steps  []LadderStep
	// Knee is the index of the first step whose throughput grew less than
	// 5% over the step before, -1 if it kept growing.
	Knee int
}

// LadderStep is one rung.
type LadderStep struct {
	Clients  int
	TxnPerS  float64
	CycleP99 float64
}

// Ladders builds one ladder per combination of the other settings when
// clients is varied.
func Ladders(s *Summary) []Ladder {
	byOthers := map[string]*Ladder{}
	var order []string
	for _, c := range s.Cells {
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
		step := LadderStep{Clients: clients, TxnPerS: c.TxnPerS}
		if cy := c.op(result.CycleOp); cy != nil {
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
			if prev := l.Steps[i-1].TxnPerS; prev > 0 && l.Steps[i].TxnPerS < prev*1.05 {
				l.Knee = i
				break
			}
		}
		out = append(out, *l)
	}
	return out
}

func (l Ladder) write(w io.Writer) {
	title := "throughput by clients"
	if l.Others != "" {
		title += " (" + l.Others + ")"
	}
	fmt.Fprintf(w, "## %s\n\n", title)
	rows := [][]string{{"clients", "txn/s", "vs previous", "cycle p99 (ms)", ""}}
	for i, s := range l.Steps {
		vs := "-"
		if i > 0 {
			vs = Change(l.Steps[i-1].TxnPerS, s.TxnPerS)
		}
		mark := ""
		if i == l.Knee {
			mark = "<- throughput stops growing"
		}
		rows = append(rows, []string{strconv.Itoa(s.Clients), f1(s.TxnPerS), vs, f2(s.CycleP99), mark})
	}
	texttable.Write(w, texttable.Markdown, rows, 0)
}

func f1(v float64) string { return strconv.FormatFloat(round(v, 1), 'f', 1, 64) }
func f2(v float64) string { return strconv.FormatFloat(round(v, 2), 'f', 2, 64) }

func round(v float64, prec int) float64 {
	p := math.Pow10(prec)
	return math.Round(v*p) / p
}
