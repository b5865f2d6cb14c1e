package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/redact"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// chartJSVersion is the vendored Chart.js (assets/README.md).
const chartJSVersion = "4.6.1"

//go:embed assets/chart.umd.min.js
var chartJS string

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Parse(htmlSource))

// page is one part of what html.tmpl renders (see View): the text parts
// as HTML, the charts as JSON that the page's script draws.
type page struct {
	Title  string
	Header []field
	Notes  []string
	Tables []table     // before the charts
	After  []table     // after the charts: the details
	Data   template.JS // the charts (chartData) as JSON
	data   chartData
}

type field struct{ Name, Value string }

// table is a table of text cells; the first column is left-aligned, the
// others right-aligned unless listed in Left. Columns listed in Wrap hold
// long text (error messages, queries) that may wrap; others do not.
type table struct {
	Title   string
	Note    string
	Columns []string
	Rows    [][]string
	Left    map[int]bool
	Wrap    map[int]bool
}

// chartData is the JSON the page's script reads: sections of charts.
type chartData struct {
	Sections []section `json:"sections"`
	Marks    []mark    `json:"marks,omitempty"` // faults: a line on each chart over time
}

type section struct {
	Title  string  `json:"title"`
	Note   string  `json:"note,omitempty"`
	Charts []chart `json:"charts"`
}

// chart is one chart, described fully here so that the page's script only
// maps it onto Chart.js. Kind is line (Series' Points are x,y pairs), bar
// or hbar (Series' Values go with Labels).
type chart struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Kind    string   `json:"kind"`
	X       axis     `json:"x"` // for bars: the axis of the labels
	Y       axis     `json:"y"` // for bars: the axis of the values
	Y2      *axis    `json:"y2,omitempty"`
	Labels  []string `json:"labels,omitempty"`
	Series  []series `json:"series"`
	Stacked bool     `json:"stacked,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// axis is an axis's title and scale: "" (linear), "log", or "percentile"
// (x = -log10(1 - q), so 1 is 90%, 2 is 99%, 3 is 99.9%).
type axis struct {
	Title string `json:"title"`
	Scale string `json:"scale,omitempty"`
}

type series struct {
	Label  string       `json:"label"`
	Points [][2]float64 `json:"points,omitempty"`
	Values []float64    `json:"values,omitempty"`
	Axis   string       `json:"axis,omitempty"` // "y2" for the right axis
	Dash   bool         `json:"dash,omitempty"`
}

// HTML writes r as one self-contained HTML page: what ran, the per-op
// table, and charts of throughput, latency and errors over time, the
// latency distribution and, when r has it, the database's telemetry. The
// chart library is inlined: the page needs no network.
func HTML(w io.Writer, r *result.Result) error { return RunView(r).Write(w) }

// StudyHTML writes a study as one self-contained HTML page: the cells side
// by side (transactions/s, p95 and p99 per op), the concurrency ladder when
// clients vary, and, from runs (one result per cell, in the order of
// s.Cells, nil where none could be read), throughput and p99 over time
// with the cells' faults marked; then every section of study.md, the
// client vs server one from all (every run of each cell; nil leaves it out).
func StudyHTML(w io.Writer, s *study.Summary, runs []*result.Result, all [][]*result.Result) error {
	return StudyView(s, runs, all).Write(w)
}

// marshalData encodes the charts for a <script type="application/json">:
// encoding/json escapes <, > and & (and U+2028/9), so no string from a
// result can close the script element.
func marshalData(d chartData) ([]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encoding the report's charts: %w", err)
	}
	return b, nil
}

// inlineChartJS is the library without its source-map comment: the map is
// not shipped, and a browser's tools would look for it.
func inlineChartJS() string {
	s := strings.TrimRight(chartJS, "\n")
	if i := strings.LastIndex(s, "\n//# sourceMappingURL="); i >= 0 {
		s = s[:i]
	}
	return s
}

// ChartCount is how many charts the page of r draws: a browser test
// compares it with what the page says it drew.
func ChartCount(r *result.Result) int { return countCharts(runCharts(r)) }

// StudyChartCount is ChartCount for a study page.
func StudyChartCount(s *study.Summary, runs []*result.Result) int {
	return countCharts(studyCharts(s, runs))
}

func countCharts(d chartData) int {
	n := 0
	for _, s := range d.Sections {
		n += len(s.Charts)
	}
	return n
}

// runPage is the text of a run's page: header, tables and notes.
func runPage(r *result.Result) page {
	p := page{Title: "txnbench " + r.Workload, Header: runHeader(r), Notes: runNotes(r)}

	ops := table{Title: "per op", Wrap: map[int]bool{0: true}, Columns: []string{"op", "kind", "clients", "ops", "ops/s", "mean (ms)", "p50 (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "server (ms)", "retries", "errors"}, Left: map[int]bool{1: true}}
	for o := range orderedOps(r) {
		rate := 0.0
		if r.MeasuredS > 0 {
			rate = float64(o.Count) / r.MeasuredS
		}
		server := ""
		if o.ServerMS > 0 {
			server = ms(o.ServerMS)
		}
		row := append([]string{o.Name, o.Kind.Label(), strconv.Itoa(o.Clients), thousands(o.Count), fixed(rate, 1)}, opLatencies(o)...)
		ops.Rows = append(ops.Rows, append(row, server, thousands(o.Retries), thousands(o.ErrorCount())))
	}
	p.Tables = append(p.Tables, ops)
	if f := faultTable(r); len(f.Rows) > 0 {
		p.Tables = append(p.Tables, f)
	}
	p.Tables = append(p.Tables, slowOpsTable(r)...)

	errs := table{Title: "errors by class", Columns: []string{"op", "class", "errors", "first error"}, Left: map[int]bool{1: true, 3: true}, Wrap: map[int]bool{0: true, 3: true}}
	for o := range orderedOps(r) {
		for _, c := range sortedKeys(o.Errors) {
			errs.Rows = append(errs.Rows, []string{o.Name, c, thousands(o.Errors[c]), o.ErrorSamples[c]})
		}
	}
	if len(errs.Rows) > 0 {
		p.Tables = append(p.Tables, errs)
	}
	if ch := r.Invariants; ch != nil && len(ch.Items) > 0 {
		inv := table{Title: "invariants", Columns: []string{"check", "result", "detail"}, Left: map[int]bool{1: true, 2: true}, Wrap: map[int]bool{2: true}}
		for _, it := range ch.Items {
			res := "ok"
			if !it.OK {
				res = "FAIL"
			}
			inv.Rows = append(inv.Rows, []string{it.Name, res, it.Detail})
		}
		if ch.UnknownCommits > 0 {
			inv.Note = fmt.Sprintf("commits with unknown outcome: %d", ch.UnknownCommits)
		}
		p.Tables = append(p.Tables, inv)
	}
	p.Tables = append(p.Tables, anomalyTable(r)...)
	c := r.Client
	client := table{Title: "client (txnbench's own cost)", Columns: []string{"cpu user (s)", "cpu sys (s)", "of one core", "cpu per cycle (ms)", "allocated per txn (KB)", "peak memory (MB)"}}
	core := ""
	if r.MeasuredS > 0 {
		core = fmt.Sprintf("%.0f%%", 100*(c.CPUUserS+c.CPUSysS)/r.MeasuredS)
	}
	client.Rows = append(client.Rows, []string{fixed(c.CPUUserS, 2), fixed(c.CPUSysS, 2), core, fixed(c.CPUPerCycleMS, 3), fixed(c.AllocPerTxnKB, 1), fixed(c.MaxRSSMB, 0)})
	if r.Server.Embedded {
		client.Note = "the database is embedded: this includes the engine's own work"
	}
	if p := r.Network.ProxyCPU(r.MeasuredS); p != "" {
		client.Note = strings.TrimPrefix(client.Note+"; "+p, "; ")
	}
	p.After = append(p.After, client)
	if t, ok := cpuTable(r); ok {
		p.After = append(p.After, t)
	}
	if t := r.Telemetry; t != nil {
		p.After = append(p.After, telemetryTables(t, r.MeasuredS)...)
	}
	return p
}

// runHeader is a run page's header: what ran where, how, and its outcome.
func runHeader(r *result.Result) []field {
	var h []field
	add := func(name, value string) {
		if value != "" {
			h = append(h, field{name, value})
		}
	}
	add("workload", r.Workload)
	add("settings", settingsLine(r.Settings))
	add("data", dataLine(r.Data))
	add("database", strings.TrimSpace(r.Server.Dialect+" "+r.Server.Version))
	add("server", r.Server.Banner)
	add("url", redact.URL(r.Config.DB))
	add("replicas", r.Config.Topology)
	for _, l := range r.Replication {
		add("standby", l.String())
	}
	if r.Network != nil {
		add("network", r.Network.String())
		add("warning", r.Network.Warning(r.MeasuredS))
	}
	if r.TLS != nil {
		add("tls", r.TLS.String())
	}
	add("run", runLine(r))
	if r.LimitedBy != nil {
		add("limited by", r.LimitedBy.String())
	}
	if len(r.Config.PGConf) > 0 {
		add("server settings", strings.Join(r.Config.PGConf, " "))
	}
	if !r.Started.IsZero() {
		add("started", r.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	add("measured", strconv.FormatFloat(r.MeasuredS, 'f', 1, 64)+" s")
	add("machine", fmt.Sprintf("%s (%s/%s, %d CPUs)", r.Machine.Hostname, r.Machine.OS, r.Machine.Arch, r.Machine.CPUs))
	add("txnbench", strings.TrimSpace(r.Tool.Version+" "+r.Tool.Go))
	if len(r.Config.Args) > 0 {
		args := make([]string, len(r.Config.Args))
		for i, a := range r.Config.Args {
			args[i] = redact.URL(a)
		}
		add("command", strings.Join(args, " "))
	}
	if p := r.Pooler; p != nil {
		add("pooler", poolerLine(p))
		for _, f := range fleetFields(p) {
			add(f.Name, f.Value)
		}
	}
	if p := r.Pool; p != nil {
		add("pool", fmt.Sprintf("%d connections, %s acquires, %s waited or connected, %.2f s waiting in all, %s connections opened",
			p.MaxConns, thousands(p.Acquires), thousands(p.EmptyAcquires), p.WaitS, thousands(p.NewConns)))
	}
	if ch := r.Invariants; ch != nil {
		if ch.Anomalies != nil {
			add("anomalies", ch.Anomalies.Verdict())
		}
		if l := r.LostAtFailover(); l != nil {
			add("lost at failover", l.String())
		}
		add("invariants", ch.Status())
	}
	return h
}

// runNotes are a run page's notes: the workload's, the shards', and what
// cut the run short.
func runNotes(r *result.Result) []string {
	var notes []string
	notes = append(notes, r.Notes...)
	notes = append(notes, r.Figures...)
	notes = append(notes, shardLines(r)...)
	if r.Interrupted {
		notes = append(notes, "the run was interrupted: it measured less than it was asked to")
	}
	if r.AbortedClients > 0 {
		notes = append(notes, fmt.Sprintf("%d clients aborted on an error that ends a client (see errors by class)", r.AbortedClients))
	}
	notes = append(notes, windowNotes(r)...)
	if t := r.Telemetry; t != nil {
		notes = append(notes, t.Notes...)
	}
	return notes
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// telemetryTables are the database's totals, its waits and its statements.
func telemetryTables(t *result.Telemetry, measuredS float64) []table {
	var out []table
	if len(t.Database) > 0 {
		db := table{Title: "database counters (change over the measured window)", Columns: []string{"counter", "change", "per second"}}
		for _, k := range sortedKeys(t.Database) {
			per := ""
			if measuredS > 0 {
				per = fixed(float64(t.Database[k])/measuredS, 1)
			}
			db.Rows = append(db.Rows, []string{k, thousands(t.Database[k]), per})
		}
		out = append(out, db)
	}
	if w := t.Waits; w != nil && len(w.Classes) > 0 {
		wt := table{Title: "what the run's sessions waited on", Columns: []string{"wait", "samples", "share"},
			Note: fmt.Sprintf("%s snapshots every %s ms, %s samples of sessions in a transaction (active or idle in it); lock waits in %s samples, at most %d sessions waiting on a lock at once",
				thousands(w.Samples), fixed(w.SampleEveryMS, 0), thousands(w.ActiveSamples), thousands(w.LockWaitSamples), w.MaxLockWaiters)}
		for _, ws := range append(append([]result.WaitShare{}, w.Classes...), w.Events...) {
			wt.Rows = append(wt.Rows, []string{ws.Name, thousands(ws.Samples), fmt.Sprintf("%.1f%%", 100*ws.Share)})
		}
		out = append(out, wt)
	}
	if len(t.Statements) > 0 {
		st := table{Title: "statements (server execution time)", Columns: []string{"op", "query", "calls", "rows", "total (ms)", "mean (ms)"}, Left: map[int]bool{1: true}, Wrap: map[int]bool{0: true, 1: true}}
		for _, s := range t.Statements {
			st.Rows = append(st.Rows, []string{s.Op, s.Query, thousands(s.Calls), thousands(s.Rows), ms(s.TotalMS), ms(s.MeanMS)})
		}
		out = append(out, st)
	}
	if len(t.Pooler) > 0 {
		pt := table{Title: "pooler counters (change over the measured window)", Columns: []string{"counter", "change"}}
		for _, k := range sortedKeys(t.Pooler) {
			pt.Rows = append(pt.Rows, []string{k, thousands(t.Pooler[k])})
		}
		out = append(out, pt)
	}
	return out
}

// withoutDrain leaves out of the charts the short interval after the
// measured window closed, in which clients only finished their cycles and
// the server published the statistics it still held: its rates over a
// fraction of a second would show as a drop (ops) or a spike (telemetry).
// The tables keep counting it.
func withoutDrain(r *result.Result) *result.Result {
	n := len(r.Intervals)
	if n < 2 || r.Intervals[n-1].ElapsedS <= r.MeasuredS+0.001 {
		return r
	}
	c := *r
	c.Intervals = r.Intervals[:n-1]
	if t := r.Telemetry; t != nil && len(t.Series) == n {
		tc := *t
		tc.Series = t.Series[:n-1]
		c.Telemetry = &tc
	}
	return &c
}

// chartedOps are the ops that get charts: everything but the commands of
// a script (there can be many; the table has them), cycle first.
func chartedOps(r *result.Result) []result.Op {
	var out []result.Op
	for o := range orderedOps(r) {
		if o.Kind != result.KindStatement {
			out = append(out, *o)
		}
	}
	return out
}

// runCharts are a run's charts.
func runCharts(r *result.Result) chartData {
	r = withoutDrain(r)
	d := chartData{Marks: faultMarks(r)}
	ops := chartedOps(r)
	opsSec := section{Title: "throughput and latency"}
	// throughput over time: ops that count work (not waits and lag)
	tp := chart{ID: "throughput", Title: "throughput over time", Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: "ops/s"}, Note: oneIntervalNote(r)}
	for _, o := range ops {
		if o.Kind == result.KindWait || o.Kind == result.KindLag {
			continue
		}
		s := series{Label: o.Name}
		for _, iv := range r.Intervals {
			if iop := intervalOp(iv, o); iop != nil && iv.LengthS > 0 {
				s.Points = append(s.Points, [2]float64{round3(iv.ElapsedS), round3(float64(iop.Count) / iv.LengthS)})
			} else {
				s.Points = append(s.Points, [2]float64{round3(iv.ElapsedS), 0})
			}
		}
		tp.Series = append(tp.Series, s)
	}
	if len(r.Intervals) > 0 && len(tp.Series) > 0 {
		opsSec.Charts = append(opsSec.Charts, tp)
	}
	for i, o := range ops {
		if o.Count == 0 {
			continue
		}
		c := chart{ID: fmt.Sprintf("latency-%d", i+1), Title: "latency over time: " + o.Name, Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: "ms"}}
		p50, p95, p99 := series{Label: "p50"}, series{Label: "p95"}, series{Label: "p99"}
		for _, iv := range r.Intervals {
			iop := intervalOp(iv, o)
			if iop == nil || iop.Count == 0 {
				continue // no latency to show; a gap, not a zero
			}
			x := round3(iv.ElapsedS)
			p50.Points = append(p50.Points, [2]float64{x, round3(iop.P50)})
			p95.Points = append(p95.Points, [2]float64{x, round3(iop.P95)})
			p99.Points = append(p99.Points, [2]float64{x, round3(iop.P99)})
		}
		if len(p50.Points) < 2 {
			continue // a point is no line: the table and the distribution have it
		}
		c.Series = []series{p50, p95, p99}
		opsSec.Charts = append(opsSec.Charts, c)
	}
	if spec := spectrum(ops); len(spec.Series) > 0 {
		opsSec.Charts = append(opsSec.Charts, spec)
	}
	if e := errorChart(r, ops); e != nil {
		opsSec.Charts = append(opsSec.Charts, *e)
	}
	if len(opsSec.Charts) > 0 {
		d.Sections = append(d.Sections, opsSec)
	}
	if t := r.Telemetry; t != nil {
		if s := telemetryCharts(r, t); len(s.Charts) > 0 {
			d.Sections = append(d.Sections, s)
		}
	}
	return d
}

// intervalOp is o's row in iv (by name and kind: a phase may be named
// like an op), or nil.
func intervalOp(iv result.Interval, o result.Op) *result.IntervalOp {
	for i := range iv.Ops {
		if iv.Ops[i].Name == o.Name && iv.Ops[i].Kind.Label() == o.Kind.Label() {
			return &iv.Ops[i]
		}
	}
	return nil
}

// spectrumQuantiles are the percentiles of the distribution chart, evenly
// spread on its percentile axis.
var spectrumQuantiles = []float64{0, 25, 50, 68.4, 75, 82.2, 90, 93.7, 96.8, 99, 99.37, 99.68, 99.9, 99.937, 99.968, 99.99, 99.9937, 99.9968, 99.999}

// spectrum is the latency distribution of every op: latency at each
// percentile, the percentiles on a log scale of 1/(1-q) so the tail gets
// room, up to where the op's count still tells percentiles apart, ending
// at the maximum.
func spectrum(ops []result.Op) chart {
	c := chart{ID: "distribution", Title: "latency distribution (percentile spectrum)", Kind: "line",
		X: axis{Title: "percentile", Scale: "percentile"}, Y: axis{Title: "ms", Scale: "log"},
		Note: "latency at each percentile over the whole measured window; the last point of a line is the op's maximum"}
	for _, o := range ops {
		if o.Hist == nil || o.Hist.Count() == 0 {
			continue
		}
		n := float64(o.Hist.Count())
		s := series{Label: o.Name}
		last := 0.0
		for _, q := range spectrumQuantiles {
			x := -math.Log10(1 - q/100)
			if math.Pow(10, x) > n { // beyond 1/n: the count cannot tell it from the max
				break
			}
			last = x
			s.Points = append(s.Points, [2]float64{round3(x), msAtLeast(o.Hist.ValueAt(q).Seconds() * 1000)})
		}
		s.Points = append(s.Points, [2]float64{round3(math.Max(last+0.25, math.Log10(n))), msAtLeast(o.Max)})
		c.Series = append(c.Series, s)
	}
	return c
}

// msAtLeast keeps a latency drawable on a log axis.
func msAtLeast(v float64) float64 { return round3(math.Max(v, 0.001)) }

// errorChart is errors per interval, by op and class (by op when the
// result has no classes per interval: a run before classes were counted
// per interval); nil without intervals.
func errorChart(r *result.Result, ops []result.Op) *chart {
	if len(r.Intervals) == 0 {
		return nil
	}
	c := chart{ID: "errors", Title: "errors over time", Kind: "bar", Stacked: true, X: axis{Title: "elapsed (s)"}, Y: axis{Title: "errors in the interval"}}
	var total int64
	for _, o := range ops {
		// the classes seen in any interval, else the op as one series
		classes := map[string]bool{}
		for _, iv := range r.Intervals {
			if iop := intervalOp(iv, o); iop != nil {
				total += iop.Errors
				for k := range iop.ErrorClasses {
					classes[k] = true
				}
			}
		}
		for _, k := range sortedKeys(classes) {
			s := series{Label: o.Name + ": " + k}
			for _, iv := range r.Intervals {
				v := 0.0
				if iop := intervalOp(iv, o); iop != nil {
					v = float64(iop.ErrorClasses[k])
				}
				s.Points = append(s.Points, [2]float64{round3(iv.ElapsedS), v})
			}
			c.Series = append(c.Series, s)
		}
		// errors without a class: all of them when the result has no
		// classes per interval, else what the classes do not cover
		rest := series{Label: o.Name}
		if len(classes) > 0 {
			rest.Label += ": unclassified"
		}
		some := false
		for _, iv := range r.Intervals {
			v := 0.0
			if iop := intervalOp(iv, o); iop != nil {
				n := iop.Errors
				for _, k := range iop.ErrorClasses {
					n -= k
				}
				v = float64(max(n, 0))
				some = some || n > 0
			}
			rest.Points = append(rest.Points, [2]float64{round3(iv.ElapsedS), v})
		}
		if some {
			c.Series = append(c.Series, rest)
		}
	}
	if total == 0 {
		c.Note = "no errors in the measured window"
		s := series{Label: "errors"}
		for _, iv := range r.Intervals {
			s.Points = append(s.Points, [2]float64{round3(iv.ElapsedS), 0})
		}
		c.Series = []series{s}
	}
	return &c
}

// serverLagNote marks the server's charts that leave the first interval out.
const serverLagNote = "from the second interval: the server publishes its counters up to a second late"

// lengths are the lengths in seconds of the telemetry samples' intervals.
func lengths(r *result.Result, ss []result.Sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		switch {
		case i < len(r.Intervals) && r.Intervals[i].LengthS > 0:
			out[i] = r.Intervals[i].LengthS
		case i > 0:
			out[i] = s.ElapsedS - ss[i-1].ElapsedS
		default:
			out[i] = s.ElapsedS
		}
	}
	return out
}

// shareChart is a bar per wait class or event: its share of the samples
// of sessions in a transaction.
func shareChart(id, what, x string, shares []result.WaitShare) chart {
	c := chart{ID: id, Title: what + " (share of samples of sessions in a transaction)", Kind: "hbar", X: axis{Title: x}, Y: axis{Title: "% of samples"}}
	s := series{Label: "share"}
	for _, ws := range shares {
		c.Labels = append(c.Labels, ws.Name)
		s.Values = append(s.Values, round3(100*ws.Share))
	}
	c.Series = []series{s}
	return c
}

// clientCharts are txnbench's CPU against the machine's, and its memory.
func clientCharts(r *result.Result, ss []result.Sample) []chart {
	cpu := chart{ID: "cpu", Title: "CPU", Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: "cores busy"},
		Note: "txnbench itself against the whole machine, in cores"}
	client, machine := series{Label: "txnbench"}, series{Label: fmt.Sprintf("machine (%d CPUs)", r.Machine.CPUs)}
	mem := chart{ID: "memory", Title: "txnbench memory", Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: "resident MB"}}
	rss := series{Label: "txnbench"}
	for _, smp := range ss {
		x := round3(smp.ElapsedS)
		client.Points = append(client.Points, [2]float64{x, round3(smp.ClientCPU)})
		machine.Points = append(machine.Points, [2]float64{x, round3(smp.MachineCPU * float64(max(r.Machine.CPUs, 1)))})
		rss.Points = append(rss.Points, [2]float64{x, round3(smp.ClientRSSMB)})
	}
	cpu.Series = []series{client, machine}
	mem.Series = []series{rss}
	return []chart{cpu, mem}
}

// telemetryCharts are the database's, pooler's and machine's series and
// the wait summary.
func telemetryCharts(r *result.Result, t *result.Telemetry) section {
	sec := section{Title: "database and machine"}
	ss := t.Series
	ls := lengths(r, ss)
	// rate is a counter's change per second, one series per counter
	// present in any sample (with nonzero, that was not always 0), from
	// sample first on.
	rate := func(id, title, unit string, scale float64, nonzero bool, first int, pick func(result.Sample) map[string]int64, names ...string) {
		c := chart{ID: id, Title: title, Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: unit}}
		if first > 0 {
			c.Note = serverLagNote
		}
		for _, name := range names {
			present := false
			s := series{Label: name}
			for i, smp := range ss {
				if i < first {
					continue
				}
				v, ok := pick(smp)[name]
				present = present || (ok && (!nonzero || v != 0))
				y, l := 0.0, ls[i]
				if smp.SpanS > 0 {
					l = smp.SpanS // the time the server's counters cover
				}
				if l > 0 {
					y = float64(v) / l / scale
				}
				s.Points = append(s.Points, [2]float64{round3(smp.ElapsedS), round3(y)})
			}
			if present {
				c.Series = append(c.Series, s)
			}
		}
		if len(c.Series) > 0 {
			sec.Charts = append(sec.Charts, c)
		}
	}
	db := func(s result.Sample) map[string]int64 { return s.Database }
	// The server publishes its counters up to a second late: its first
	// interval misses what ran in it, so its series start at the second.
	first := min(1, len(ss)-1)
	if len(ss) > 0 {
		rate("db-xact", "transactions (server)", "per second", 1, false, first, db, "xact_commit", "xact_rollback")
		// writes and reads apart: a million reads a second would flatten the writes
		rate("db-rows-written", "rows written (server)", "rows/s", 1, false, first, db, "tup_inserted", "tup_updated", "tup_deleted")
		rate("db-rows-read", "rows read (server)", "rows/s", 1, false, first, db, "tup_fetched", "tup_returned")
		rate("db-blocks-hit", "buffer hits (server)", "blocks/s", 1, false, first, db, "blks_hit")
		rate("db-blocks-read", "blocks read (server)", "blocks/s", 1, false, first, db, "blks_read")
		rate("db-wal", "WAL written", "MB/s", 1<<20, false, first, db, "wal_bytes")
		rate("db-trouble", "deadlocks, conflicts, temp files", "per second", 1, true, first, db, "deadlocks", "conflicts", "temp_files")
		var pooler []string
		seen := map[string]bool{}
		for _, smp := range ss {
			for k := range smp.Pooler {
				if !seen[k] && strings.HasSuffix(k, "_count") {
					seen[k] = true
					pooler = append(pooler, k)
				}
			}
		}
		sort.Strings(pooler)
		rate("pooler", "pooler", "per second", 1, false, 0, func(s result.Sample) map[string]int64 { return s.Pooler }, pooler...)
		if w := waitsChart(t, ss, ls); w != nil {
			sec.Charts = append(sec.Charts, *w)
		}
		sec.Charts = append(sec.Charts, clientCharts(r, ss)...)
	}
	if w := t.Waits; w != nil && len(w.Classes) > 0 {
		sec.Charts = append(sec.Charts, shareChart("wait-classes", "wait classes", "wait class", w.Classes))
		if len(w.Events) > 0 {
			sec.Charts = append(sec.Charts, shareChart("wait-events", "top wait events", "wait event", w.Events))
		}
	}
	// client vs server time per op
	cs := chart{ID: "client-server", Title: "client vs server time per op (mean)", Kind: "bar", X: axis{Title: "op"}, Y: axis{Title: "ms"},
		Note: "server: the op's statements' execution time (pg_stat_statements); the rest is network, client and think time"}
	lat, srv := series{Label: "latency (client)"}, series{Label: "server execution"}
	for _, o := range chartedOps(r) {
		if o.ServerMS > 0 {
			cs.Labels = append(cs.Labels, o.Name)
			lat.Values = append(lat.Values, round3(o.Mean))
			srv.Values = append(srv.Values, round3(o.ServerMS))
		}
	}
	if len(cs.Labels) > 0 {
		cs.Series = []series{lat, srv}
		sec.Charts = append(sec.Charts, cs)
	}
	return sec
}

// waitsChart is the average number of sessions in a transaction (active
// or idle in it) per wait class in
// each interval, stacked: how busy the server was and on what.
func waitsChart(t *result.Telemetry, ss []result.Sample, ls []float64) *chart {
	classes := map[string]bool{}
	for _, s := range ss {
		for k := range s.Waits {
			classes[k] = true
		}
	}
	if len(classes) == 0 {
		return nil
	}
	c := chart{ID: "waits", Title: "sessions in a transaction by wait class", Kind: "bar", Stacked: true, X: axis{Title: "elapsed (s)"}, Y: axis{Title: "average sessions in a transaction"}}
	every := 0.0
	if t.Waits != nil {
		every = t.Waits.SampleEveryMS / 1000
	}
	if every <= 0 {
		c.Y.Title = "samples of sessions in a transaction"
	}
	// the largest classes first, as in the summary
	names := sortedKeys(classes)
	if t.Waits != nil {
		rank := map[string]int{}
		for i, w := range t.Waits.Classes {
			rank[w.Name] = i + 1
		}
		sort.SliceStable(names, func(i, j int) bool {
			ri, rj := rank[names[i]], rank[names[j]]
			if ri == 0 || rj == 0 {
				return ri != 0 && rj == 0
			}
			return ri < rj
		})
	}
	for _, name := range names {
		s := series{Label: name}
		for i, smp := range ss {
			v := float64(smp.Waits[name])
			if every > 0 && ls[i] > 0 {
				v = v * every / ls[i]
			}
			s.Points = append(s.Points, [2]float64{round3(smp.ElapsedS), round3(v)})
		}
		c.Series = append(c.Series, s)
	}
	return &c
}

// studyPage is the text of a study's page.
func studyPage(s *study.Summary, runs []*result.Result, all [][]*result.Result) page {
	p := page{Title: "txnbench study " + s.Workload}
	p.Header = append(p.Header, field{"workload", s.Workload})
	var varied []string
	for _, v := range s.Vary {
		varied = append(varied, v.Key+" = "+strings.Join(v.Values, ", "))
	}
	p.Header = append(p.Header, field{"varied", strings.Join(varied, "; ")},
		field{"repetitions", fmt.Sprintf("%d per cell, interleaved; medians across repetitions", s.Repeat)})
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = redact.URL(a)
	}
	if len(args) > 0 {
		p.Header = append(p.Header, field{"command", strings.Join(args, " ")})
	}
	for _, r := range runs {
		if r != nil {
			p.Header = append(p.Header, field{"machine", fmt.Sprintf("%s (%s/%s, %d CPUs)", r.Machine.Hostname, r.Machine.OS, r.Machine.Arch, r.Machine.CPUs)},
				field{"txnbench", strings.TrimSpace(r.Tool.Version + " " + r.Tool.Go)})
			break
		}
	}
	cells := table{Title: "cells", Columns: []string{"cell", "server", "txn/s", "txn/s vs first", "invariants", "client CPU per txn (ms)", "allocated per txn (KB)", "peak memory (MB)"}, Left: map[int]bool{1: true, 4: true}}
	for i, c := range s.Cells {
		vs, inv := "-", c.Invariants().Status()
		if i > 0 {
			vs = study.Change(s.Cells[0].TxnPerS, c.TxnPerS)
		}
		if c.Invariants().Violated() {
			p.Notes = append(p.Notes, "invariants VIOLATED in cell "+c.Label)
		}
		if b := c.Behind; b != nil {
			p.Notes = append(p.Notes, fmt.Sprintf("cell %s fell behind its schedule in %d of %d runs: %s", c.Label, c.BehindRuns, max(len(c.Results), c.BehindRuns), b.Text()))
		}
		cells.Rows = append(cells.Rows, []string{c.Label, c.Server, fixed(c.TxnPerS, 1), vs, inv, fixed(c.ClientCPUPerTxnMS, 3), fixed(c.AllocPerTxnKB, 1), fixed(c.PeakMB, 0)})
	}
	if l := s.DecisionLine(); l != "" {
		p.Notes = append(p.Notes, l)
	}
	p.Tables = append(p.Tables, vsFirst(s, cells))
	p.After = append(p.After, studyTables(s, all)...)
	for i, r := range runs {
		if r == nil && i < len(s.Cells) {
			p.Notes = append(p.Notes, "no result file could be read for cell "+s.Cells[i].Label+": its charts over time are left out")
		}
	}
	return p
}

// studyCharts are the cells side by side, the ladders and, from the
// runs, the cells over time.
func studyCharts(s *study.Summary, runs []*result.Result) chartData {
	var d chartData
	// the cells' faults, once each where cells ran the same schedule
	marked := map[mark]bool{}
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, m := range faultMarks(r) {
			if k := (mark{X: math.Round(m.X*10) / 10, Label: m.Label}); !marked[k] {
				marked[k] = true
				d.Marks = append(d.Marks, m)
			}
		}
	}
	for _, sec := range []section{cellsCompared(s), ladderSection(s), cellsOverTime(s, runs)} {
		if len(sec.Charts) > 0 {
			d.Sections = append(d.Sections, sec)
		}
	}
	return d
}

// cellsCompared charts each cell's throughput and each transaction's and
// the cycle's p95 and p99.
func cellsCompared(s *study.Summary) section {
	cmp := section{Title: "cells compared"}
	var labels []string
	for _, c := range s.Cells {
		labels = append(labels, c.Label)
	}
	txn := chart{ID: "cells-txn", Title: "transactions per second", Kind: "bar", Labels: labels, X: axis{Title: "cell"}, Y: axis{Title: "txn/s"}}
	ts := series{Label: "txn/s"}
	for _, c := range s.Cells {
		ts.Values = append(ts.Values, round3(c.TxnPerS))
	}
	txn.Series = []series{ts}
	if len(labels) > 0 {
		cmp.Charts = append(cmp.Charts, txn)
	}
	// p95/p99 per op, for the transactions and the cycle
	var names []string
	seen := map[string]bool{}
	for _, c := range s.Cells {
		for _, o := range c.Ops {
			if (o.Kind.IsTxn() || o.Kind == result.KindCycle) && !seen[o.Name] {
				seen[o.Name] = true
				names = append(names, o.Name)
			}
		}
	}
	for i, name := range names {
		c := chart{ID: fmt.Sprintf("cells-latency-%d", i+1), Title: "latency: " + name, Kind: "bar", Labels: labels, X: axis{Title: "cell"}, Y: axis{Title: "ms"}}
		p95, p99 := series{Label: "p95"}, series{Label: "p99"}
		for _, cell := range s.Cells {
			var v95, v99 float64
			for _, o := range cell.Ops {
				if o.Name == name {
					v95, v99 = o.P95, o.P99
				}
			}
			p95.Values = append(p95.Values, round3(v95))
			p99.Values = append(p99.Values, round3(v99))
		}
		c.Series = []series{p95, p99}
		cmp.Charts = append(cmp.Charts, c)
	}
	return cmp
}

// ladderSection charts each concurrency ladder: throughput and cycle p99
// by clients.
func ladderSection(s *study.Summary) section {
	ladder := section{Title: "concurrency ladder"}
	for i, l := range study.Ladders(s) {
		if len(l.Steps) < 2 {
			continue
		}
		title := "throughput and cycle p99 by clients"
		if l.Others != "" {
			title += " (" + l.Others + ")"
		}
		c := chart{ID: fmt.Sprintf("ladder-%d", i+1), Title: title, Kind: "line", X: axis{Title: "clients"}, Y: axis{Title: "txn/s"}, Y2: &axis{Title: "cycle p99 (ms)"}}
		t, p := series{Label: "txn/s"}, series{Label: "cycle p99 (ms)", Axis: "y2", Dash: true}
		for _, st := range l.Steps {
			t.Points = append(t.Points, [2]float64{float64(st.Clients), round3(st.TxnPerS)})
			p.Points = append(p.Points, [2]float64{float64(st.Clients), round3(st.CycleP99)})
		}
		c.Series = []series{t, p}
		c.Note = l.Note()
		ladder.Charts = append(ladder.Charts, c)
	}
	return ladder
}

// cellsOverTime charts each cell's first repetition's throughput and cycle
// p99 over time.
func cellsOverTime(s *study.Summary, runs []*result.Result) section {
	over := section{Title: "cells over time (first repetition)"}
	tput := chart{ID: "cells-throughput-time", Title: "transactions per second over time", Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: "txn/s"}}
	p99 := chart{ID: "cells-p99-time", Title: "cycle p99 over time", Kind: "line", X: axis{Title: "elapsed (s)"}, Y: axis{Title: "ms"}}
	for i, r := range runs {
		if r == nil || i >= len(s.Cells) || len(r.Intervals) == 0 {
			continue
		}
		ts, ps := series{Label: s.Cells[i].Label}, series{Label: s.Cells[i].Label}
		if n := oneIntervalNote(r); n != "" {
			tput.Note = s.Cells[i].Label + ": " + n
		}
		for _, iv := range r.Intervals {
			x := round3(iv.ElapsedS)
			if iv.LengthS > 0 {
				ts.Points = append(ts.Points, [2]float64{x, round3(iv.TxnPerS())})
			}
			if cy := intervalOp(iv, result.Op{Name: result.CycleOp, Kind: result.KindCycle}); cy != nil && cy.Count > 0 {
				ps.Points = append(ps.Points, [2]float64{x, round3(cy.P99)})
			}
		}
		tput.Series = append(tput.Series, ts)
		if len(ps.Points) > 0 {
			p99.Series = append(p99.Series, ps)
		}
	}
	if len(tput.Series) > 0 {
		over.Charts = append(over.Charts, tput)
	}
	if len(p99.Series) > 0 {
		over.Charts = append(over.Charts, p99)
	}
	return over
}

// round3 rounds to 3 decimals and makes NaN and infinities 0, which JSON
// cannot carry.
func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}
