package live

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Buckets are the upper bounds of the latency histograms' buckets.
var Buckets = []time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second,
}

// Info describes one run (or one study cell): the labels of
// txnbench_run_info and the clients gauge.
type Info struct {
	// Cell is the study cell's label (e.g. "variant=text clients=8"): every
	// series of the run carries it as label cell. "" outside a study.
	Cell          string
	Workload      string
	Database      string // the target, passwords masked
	ServerVersion string // e.g. "PostgreSQL 15.8"
	Version       string // txnbench's
	Clients       int
}

// Metrics accumulates the totals of the runs fed to it and writes them in
// the Prometheus text format. It is safe for concurrent use: scrapes may
// run while intervals arrive.
type Metrics struct {
	mu      sync.Mutex
	cells   []*cell
	current *cell // the run in progress, nil between runs
}

// cell is the totals of one run, or of every repetition of a study cell.
type cell struct {
	info      Info
	measuring bool
	measuredS float64
	ops       []*opTotals // in the runner's order
}

// opTotals is one op's totals.
type opTotals struct {
	name                    string
	kind                    result.Kind
	count, retries, skipped int64
	errors                  map[string]int64 // by class
	sumS                    float64          // latency sum, seconds
	hist                    *metrics.Hist
	buckets                 []int64 // cumulative, at Buckets, as of the last scrape
	stale                   bool    // hist changed since buckets were counted
}

// New returns empty metrics.
func New() *Metrics { return &Metrics{} }

// Begin starts a run: later intervals count towards info.Cell's totals
// (a repeated study cell keeps adding to its counters). Measuring is
// false until Measuring is called.
func (m *Metrics) Begin(info Info) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var c *cell
	for _, x := range m.cells {
		if x.info.Cell == info.Cell {
			c = x
		}
	}
	if c == nil {
		c = &cell{}
		m.cells = append(m.cells, c)
	}
	c.info = info
	c.measuring = false
	m.current = c
}

// Measuring marks the run's measured window as begun (the warm-up, if
// any, is over).
func (m *Metrics) Measuring() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current != nil {
		m.current.measuring = true
	}
}

// End marks the run as over.
func (m *Metrics) End() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current != nil {
		m.current.measuring = false
	}
	m.current = nil
}

// Observe adds one closed interval to the current run's totals. An
// interval outside a run is an error.
func (m *Metrics) Observe(iv result.Interval) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.current
	if c == nil {
		return fmt.Errorf("interval at %.1fs outside a run", iv.ElapsedS)
	}
	c.measuring = true // intervals only close while measuring
	c.measuredS += iv.LengthS
	for _, o := range iv.Ops {
		t := c.op(o.Name, o.Kind)
		t.retries += o.Retries
		t.skipped += o.Skipped
		for class, n := range o.ErrorClasses {
			t.errors[class] += n
		}
		var classed int64
		for _, n := range o.ErrorClasses {
			classed += n
		}
		if rest := o.Errors - classed; rest > 0 { // errors without a class (older producers)
			t.errors[string(errclass.Other)] += rest
		}
		if o.Hist == nil {
			continue
		}
		t.count += o.Count
		t.sumS += o.Mean * float64(o.Count) / 1000
		t.hist.Merge(o.Hist)
		t.stale = true // counted at the next scrape: intervals come more often
	}
	return nil
}

// op returns the totals of the op of that name and kind (a phase may be
// named like an op), adding them at first sight.
func (c *cell) op(name string, kind result.Kind) *opTotals {
	for _, t := range c.ops {
		if t.name == name && t.kind.Label() == kind.Label() {
			return t
		}
	}
	t := &opTotals{name: name, kind: kind, errors: map[string]int64{}, hist: metrics.NewHist(), buckets: make([]int64, len(Buckets))}
	c.ops = append(c.ops, t)
	return t
}

// WriteTo writes the metrics in the text exposition format 0.0.4.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	m.mu.Lock()
	m.write(&b)
	m.mu.Unlock()
	return b.WriteTo(w)
}

// ServeHTTP serves the metrics to GET and HEAD requests.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "use GET", http.StatusMethodNotAllowed)
		return
	}
	var b bytes.Buffer
	m.mu.Lock()
	m.write(&b)
	m.mu.Unlock()
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Content-Length", fmt.Sprint(b.Len()))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b.Bytes())
}

// write writes every family, its series in the order the cells and ops
// were first seen. The caller holds m.mu.
func (m *Metrics) write(b *bytes.Buffer) {
	type opSeries struct {
		c *cell
		t *opTotals
	}
	var all []opSeries
	for _, c := range m.cells {
		for _, t := range c.ops {
			all = append(all, opSeries{c, t})
		}
	}
	cellLabel := func(c *cell) []string {
		if c.info.Cell == "" {
			return nil
		}
		return []string{"cell", c.info.Cell}
	}
	opLabels := func(s opSeries, kind bool, more ...string) []string {
		l := append(cellLabel(s.c), "op", s.t.name)
		if kind {
			l = append(l, "kind", s.t.kind.Label())
		}
		return append(l, more...)
	}

	family(b, "txnbench_run_info", "gauge", "The run: workload, database (password masked), server and txnbench versions; always 1.")
	for _, c := range m.cells {
		sample(b, "txnbench_run_info", append(cellLabel(c),
			"workload", c.info.Workload, "database", c.info.Database,
			"server_version", c.info.ServerVersion, "txnbench_version", c.info.Version), "1")
	}
	family(b, "txnbench_clients", "gauge", "Concurrent clients of the run.")
	for _, c := range m.cells {
		sample(b, "txnbench_clients", cellLabel(c), fmt.Sprint(c.info.Clients))
	}
	family(b, "txnbench_measuring", "gauge", "1 while the run measures, 0 during the warm-up, before and after it.")
	for _, c := range m.cells {
		v := "0"
		if c.measuring && c == m.current {
			v = "1"
		}
		sample(b, "txnbench_measuring", cellLabel(c), v)
	}
	family(b, "txnbench_measured_seconds", "gauge", "Length of the measured window the counters cover, up to the last progress interval.")
	for _, c := range m.cells {
		sample(b, "txnbench_measured_seconds", cellLabel(c), formatFloat(c.measuredS))
	}
	family(b, "txnbench_ops_total", "counter", "Ops completed successfully in the measured window, by kind: transaction, cycle (a whole cycle), wait (getting a connection: op connect or pool_wait) or lag (a cycle's start behind the --rate schedule).")
	for _, s := range all {
		sample(b, "txnbench_ops_total", opLabels(s, true), fmt.Sprint(s.t.count))
	}
	family(b, "txnbench_errors_total", "counter", "Ops that failed (after their retries), by error class.")
	for _, s := range all {
		classes := map[string]bool{}
		var names []string
		if s.t.kind.IsTxn() { // every class, so rate() sees the first error
			for _, cl := range errclass.All {
				classes[string(cl)] = true
				names = append(names, string(cl))
			}
		}
		var extra []string
		for cl, n := range s.t.errors {
			if !classes[cl] && n > 0 {
				extra = append(extra, cl)
			}
		}
		slices.Sort(extra)
		for _, cl := range append(names, extra...) {
			sample(b, "txnbench_errors_total", opLabels(s, false, "class", cl), fmt.Sprint(s.t.errors[cl]))
		}
	}
	family(b, "txnbench_retries_total", "counter", "Attempts that failed with a retryable error (serialization, deadlock, busy) and were tried again.")
	for _, s := range all {
		if s.t.kind.IsTxn() || s.t.retries > 0 {
			sample(b, "txnbench_retries_total", opLabels(s, false), fmt.Sprint(s.t.retries))
		}
	}
	family(b, "txnbench_skipped_total", "counter", "Cycles never started because they were already later than --latency-limit at their scheduled start (with --rate).")
	for _, s := range all {
		if s.t.kind.IsTxn() || s.t.kind == result.KindCycle || s.t.skipped > 0 {
			sample(b, "txnbench_skipped_total", opLabels(s, false), fmt.Sprint(s.t.skipped))
		}
	}
	family(b, "txnbench_op_latency_seconds", "histogram", "Latency of successful ops in the measured window (from the scheduled start with --rate), from txnbench's HDR histograms (0.1% precision).")
	for _, s := range all {
		if s.t.stale {
			s.t.buckets, s.t.stale = s.t.hist.CountsAtOrBelow(Buckets), false
		}
		for i, bound := range Buckets {
			sample(b, "txnbench_op_latency_seconds_bucket", opLabels(s, true, "le", formatBound(bound)), fmt.Sprint(s.t.buckets[i]))
		}
		sample(b, "txnbench_op_latency_seconds_bucket", opLabels(s, true, "le", "+Inf"), fmt.Sprint(s.t.count))
		sample(b, "txnbench_op_latency_seconds_sum", opLabels(s, true), formatFloat(s.t.sumS))
		sample(b, "txnbench_op_latency_seconds_count", opLabels(s, true), fmt.Sprint(s.t.count))
	}
}
