package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// hostile is an op name that would run script if a report pasted it into
// the page unescaped.
const hostile = `</script><img src=x onerror=alert(1)>`

// htmlResult is a deterministic run with intervals, error classes, server
// time, telemetry and an op whose name is hostile.
func htmlResult() *result.Result {
	r := fixedResult()
	r.Ops[0].Name = hostile // add
	r.Ops[0].ServerMS = 3.5
	r.Ops[1].ServerMS = 2.25
	r.Ops[0].ErrorSamples = map[string]string{"serialization": `ERROR: relation "x</td></tr></table><script>alert(2)</script>" does not exist`}
	r.Config.DB = `postgres://u:xxxxx@h/db?application_name="><script>alert(3)</script>`
	r.Machine = result.Machine{Hostname: "bench-1", OS: "linux", Arch: "amd64", CPUs: 4}
	names := []string{hostile, "process", "archive", result.CycleOp}
	for i := 0; i < 6; i++ {
		iv := result.Interval{ElapsedS: float64(10 * (i + 1)), LengthS: 10}
		for j, n := range names {
			h := histOf(100+10*i+j, float64(5+j), float64(50+10*i))
			iop := result.IntervalOp{Name: n, Kind: r.Ops[j].Kind, Summary: h.Summary(), Hist: h}
			if n == hostile && i == 2 {
				iop.Errors = 3
				iop.ErrorClasses = map[string]int64{"serialization": 2, "timeout<b>": 1}
			}
			iv.Ops = append(iv.Ops, iop)
		}
		r.Intervals = append(r.Intervals, iv)
	}
	t := &result.Telemetry{
		Database: map[string]int64{"xact_commit": 14400, "xact_rollback": 37, "tup_inserted": 96000, "blks_hit": 2_000_000, "blks_read": 1200, "wal_bytes": 180 << 20},
		Waits: &result.Waits{SampleEveryMS: 100, Samples: 600, ActiveSamples: 2400, LockWaitSamples: 300, MaxLockWaiters: 5,
			Classes: []result.WaitShare{{Name: "CPU", Samples: 1200, Share: 0.5}, {Name: "IO", Samples: 900, Share: 0.375}, {Name: "Lock", Samples: 300, Share: 0.125}},
			Events:  []result.WaitShare{{Name: "IO:DataFileRead", Samples: 600, Share: 0.25}, {Name: "Lock:transactionid", Samples: 300, Share: 0.125}}},
		Statements: []result.Statement{{Op: hostile, Query: "/* txnbench op=add */ INSERT INTO events_jsonb ... <script>", Calls: 4800, Rows: 48000, TotalMS: 16800, MeanMS: 3.5}},
		Notes:      []string{"pooler: none <used>"},
	}
	for i := 0; i < 6; i++ {
		t.Series = append(t.Series, result.Sample{
			ElapsedS:  float64(10 * (i + 1)),
			Database:  map[string]int64{"deadlocks": 0, "conflicts": int64(i / 5), "xact_commit": int64(2400 + 10*i), "xact_rollback": int64(i), "tup_inserted": 16000, "tup_fetched": 9000000, "blks_hit": 300000, "blks_read": int64(200 - 10*i), "wal_bytes": 30 << 20},
			Waits:     map[string]int64{"CPU": 200, "IO": int64(150 - i), "Lock": int64(10 * i)},
			ClientCPU: 0.25 + 0.01*float64(i), ClientRSSMB: 30 + float64(i), MachineCPU: 0.6,
		})
	}
	r.Telemetry = t
	return r
}

// dataOf returns the JSON in the page's data script, decoded.
func dataOf(t *testing.T, page string) (raw string, d chartData) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="txnbench-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no data script")
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the data script is not JSON: %v", err)
	}
	return m[1], d
}

func TestHTMLDataGolden(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, htmlResult()); err != nil {
		t.Fatal(err)
	}
	raw, d := dataOf(t, b.String())
	// The golden holds one chart a line; the page's data must be exactly
	// those charts.
	again, err := marshalData(d)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != raw {
		t.Fatalf("the page's data does not re-encode to itself:\n%s\n%s", raw, again)
	}
	var g strings.Builder
	for _, s := range d.Sections {
		fmt.Fprintf(&g, "## %s\n", s.Title)
		for _, c := range s.Charts {
			line, _ := json.Marshal(c)
			g.Write(line)
			g.WriteByte('\n')
		}
	}
	plain.Golden(t, "html_data.golden", g.String())
}

func TestHTMLEscapesWhatResultsHold(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, htmlResult()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The only script ends are the page's own three scripts.
	if n := strings.Count(strings.ToLower(page), "</script"); n != 3 {
		t.Errorf("%d </script in the page, want 3 (the data, Chart.js, the drawing script)", n)
	}
	if strings.Contains(page, "<img") || strings.Contains(page, "<b>") || strings.Contains(page, "<used>") || strings.Contains(page, "alert(2)</script>") || strings.Contains(page, `"><script>`) {
		t.Error("markup from the result reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(2)&lt;/script&gt;") || !strings.Contains(page, "&lt;script&gt;alert(3)&lt;/script&gt;") {
		t.Error("the error sample or the URL is not on the page, escaped")
	}
	if !strings.Contains(page, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the hostile op name is not in the per-op table, escaped")
	}
	// The data carries the name exactly, for the charts to draw as text.
	_, d := dataOf(t, page)
	found := false
	for _, s := range d.Sections {
		for _, c := range s.Charts {
			for _, se := range c.Series {
				found = found || se.Label == hostile || se.Label == hostile+": timeout<b>"
			}
		}
	}
	if !found {
		t.Error("the hostile op name does not round-trip through the data")
	}
}

func TestHTMLCharts(t *testing.T) {
	r := htmlResult()
	_, d := dataOf(t, render1(t, r))
	ids := map[string]chart{}
	for _, s := range d.Sections {
		for _, c := range s.Charts {
			if _, dup := ids[c.ID]; dup {
				t.Errorf("chart id %s twice", c.ID)
			}
			ids[c.ID] = c
		}
	}
	if got := ChartCount(r); got != len(ids) {
		t.Errorf("ChartCount %d, the page has %d", got, len(ids))
	}
	for _, id := range []string{"throughput", "latency-1", "latency-4", "distribution", "errors", "db-xact", "db-rows-written", "db-rows-read", "db-blocks-hit", "db-blocks-read", "db-wal", "waits", "cpu", "memory", "wait-classes", "wait-events", "client-server"} {
		if _, ok := ids[id]; !ok {
			t.Errorf("no chart %s", id)
		}
	}
	// throughput: ops per second of the interval
	tp := ids["throughput"]
	if tp.Series[0].Label != result.CycleOp || tp.Series[0].Points[0] != [2]float64{10, 10.3} {
		t.Errorf("throughput starts %v %v, want the cycle at (10 s, 103 ops / 10 s)", tp.Series[0].Label, tp.Series[0].Points[0])
	}
	// errors: one series per op and class, the errors in their interval
	e := ids["errors"]
	if len(e.Series) != 2 || e.Series[1].Label != hostile+": timeout<b>" || e.Series[0].Points[2] != [2]float64{30, 2} || e.Series[0].Points[1][1] != 0 {
		t.Errorf("errors chart %+v", e.Series)
	}
	// errors the classes do not cover (a merge of results without
	// classes per interval) are shown as unclassified; without any
	// classes, as the op's
	r.Intervals[4].Ops[1].Errors = 5 // process
	r.Intervals[2].Ops[0].Errors = 4 // one more than its classes
	_, d = dataOf(t, render1(t, r))
	for _, c := range d.Sections[0].Charts {
		if c.ID != "errors" {
			continue
		}
		if got := fmt.Sprint(len(c.Series), c.Series[2].Label, ys(c.Series[2]), c.Series[3].Label, ys(c.Series[3])); got != fmt.Sprint(4, hostile+": unclassified", []float64{0, 0, 1, 0, 0, 0}, "process", []float64{0, 0, 0, 0, 5, 0}) {
			t.Errorf("errors chart: %s", got)
		}
	}
	// waits: average active sessions = samples x 0.1 s / 10 s, largest class first
	w := ids["waits"]
	if w.Series[0].Label != "CPU" || w.Series[0].Points[0] != [2]float64{10, 2} || w.Series[1].Label != "IO" {
		t.Errorf("waits chart %+v", w.Series)
	}
	// counters of trouble: only those that were ever nonzero
	if tr := ids["db-trouble"]; len(tr.Series) != 1 || tr.Series[0].Label != "conflicts" || tr.Series[0].Points[4][1] != 0.1 {
		t.Errorf("trouble chart %+v, want conflicts alone, 1 in the last 10 s", tr.Series)
	}
	// WAL in MB/s: 30 MB per 10 s
	if p := ids["db-wal"].Series[0].Points[0]; p[1] != 3 {
		t.Errorf("WAL %v MB/s, want 3", p[1])
	}
	// the server's series start at its second interval (its counters lag),
	// and say so; the client's start at the first
	for id, c := range ids {
		if !strings.HasPrefix(id, "db-") {
			continue
		}
		if c.Series[0].Points[0][0] != 20 || c.Note != serverLagNote {
			t.Errorf("%s starts at %v s (note %q), want 20 s, marked", id, c.Series[0].Points[0][0], c.Note)
		}
	}
	if p := ids["cpu"].Series[0].Points[0]; p[0] != 10 {
		t.Errorf("cpu starts at %v s, want 10", p[0])
	}
	// writes and reads on charts of their own
	for id, want := range map[string][]string{
		"db-rows-written": {"tup_inserted"}, "db-rows-read": {"tup_fetched"}, // the counters the samples have
		"db-blocks-hit": {"blks_hit"}, "db-blocks-read": {"blks_read"},
	} {
		var got []string
		for _, se := range ids[id].Series {
			got = append(got, se.Label)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s shows %v, want %v", id, got, want)
		}
	}
	// every chart over time is on the numeric time axis: points, no labels
	for _, id := range []string{"errors", "waits"} {
		if c := ids[id]; len(c.Labels) > 0 || len(c.Series[0].Values) > 0 {
			t.Errorf("%s has category labels %v", id, c.Labels)
		}
	}
	// machine CPU in cores: 0.6 of 4 CPUs
	if p := ids["cpu"].Series[1].Points[0]; p[1] != 2.4 {
		t.Errorf("machine CPU %v cores, want 2.4", p[1])
	}
	// the spectrum ends at each op's maximum and rises
	for _, s := range ids["distribution"].Series {
		o := r.Op(s.Label)
		last := s.Points[len(s.Points)-1]
		if last[1] != round3(o.Max) {
			t.Errorf("%s spectrum ends at %v ms, want the max %v", s.Label, last[1], o.Max)
		}
		for i := 1; i < len(s.Points); i++ {
			if s.Points[i][0] <= s.Points[i-1][0] || s.Points[i][1] < s.Points[i-1][1] {
				t.Errorf("%s spectrum not increasing at %d: %v", s.Label, i, s.Points)
				break
			}
		}
	}
	if cs := ids["client-server"]; len(cs.Labels) != 2 || cs.Series[1].Values[0] != 3.5 {
		t.Errorf("client-server chart %+v", cs)
	}
}

// ys are a series' y values.
func ys(s series) []float64 {
	out := make([]float64, len(s.Points))
	for i, p := range s.Points {
		out[i] = p[1]
	}
	return out
}

func render1(t testing.TB, r *result.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLInvariantsNotChecked(t *testing.T) {
	r := htmlResult()
	r.Invariants = &result.Check{NotChecked: "custom scripts"}
	if page := render1(t, r); !strings.Contains(page, "not checked (custom scripts)") || strings.Contains(page, "VIOLATED") {
		t.Error("the page does not say the invariants were not checked")
	}
	s, runs := studyFixture()
	s.Cells[1].InvariantsOK, s.Cells[1].InvariantsNotChecked = false, "custom scripts"
	var b bytes.Buffer
	if err := StudyHTML(&b, s, runs, nil); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, "not checked (custom scripts)") || strings.Contains(page, "VIOLATED") {
		t.Error("the study page does not say a cell's invariants were not checked")
	}
}

func TestHTMLWithoutTelemetryOrIntervals(t *testing.T) {
	r := fixedResult() // no intervals, no telemetry: the distribution only
	_, d := dataOf(t, render1(t, r))
	if len(d.Sections) != 1 || len(d.Sections[0].Charts) != 1 || d.Sections[0].Charts[0].ID != "distribution" {
		t.Errorf("sections %+v, want the distribution alone", d.Sections)
	}
	// an op without samples gets no line, and nothing breaks
	r.Ops = append(r.Ops, result.Op{Name: "never", Hist: metrics.NewHist()})
	_, d = dataOf(t, render1(t, r))
	for _, s := range d.Sections[0].Charts[0].Series {
		if s.Label == "never" {
			t.Error("an op without samples has a spectrum")
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	page := render1(t, htmlResult())
	if !strings.Contains(page, "Chart.js v"+chartJSVersion) {
		t.Error("Chart.js is not inlined")
	}
	for _, ref := range []string{"src=\"http", "href=\"http", "sourceMappingURL"} {
		if strings.Contains(page, ref) {
			t.Errorf("the page refers outside itself: %s", ref)
		}
	}
	if strings.Contains(strings.ToLower(chartJS), "</script") {
		t.Error("the vendored Chart.js contains </script: it cannot be inlined")
	}
}

// studyFixture is a study of clients 4, 8, 16 with one result per cell.
func studyFixture() (*study.Summary, []*result.Result) {
	s := &study.Summary{Format: study.Format, Workload: "train-events", Args: []string{"txnbench", "study", "--db", "postgres://u:secret@h/db"},
		Vary: []study.Vary{{Key: "clients", Values: []string{"4", "8", "16"}}}, Repeat: 1}
	var runs []*result.Result
	for i, n := range []int{4, 8, 16} {
		r := htmlResult()
		for j := range r.Intervals {
			for k := range r.Intervals[j].Ops {
				r.Intervals[j].Ops[k].Count *= int64(i + 1)
			}
		}
		c := study.Cell{Settings: []study.Setting{{Key: "clients", Value: fmt.Sprint(n)}}}
		r.Ops[3].Summary.P99 = float64(100 * (i + 1))
		cs := study.Summarise(c, []*result.Result{r}, []string{fmt.Sprintf("cell%02d-rep1.json", i+1)})
		cs.TxnPerS = []float64{100, 180, 185}[i]
		cs.Reps[0].TxnPerS = cs.TxnPerS
		s.Cells = append(s.Cells, cs)
		runs = append(runs, r)
	}
	runs[2] = nil // a result that could not be read
	return s, runs
}

func TestStudyHTML(t *testing.T) {
	s, runs := studyFixture()
	var b bytes.Buffer
	if err := StudyHTML(&b, s, runs, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "secret") {
		t.Error("the study's password reached the page")
	}
	if !strings.Contains(page, "no result file could be read for cell clients=16") {
		t.Error("the missing result is not noted")
	}
	_, d := dataOf(t, page)
	ids := map[string]chart{}
	for _, sec := range d.Sections {
		for _, c := range sec.Charts {
			ids[c.ID] = c
		}
	}
	if got := StudyChartCount(s, runs); got != len(ids) {
		t.Errorf("StudyChartCount %d, the page has %d", got, len(ids))
	}
	txn := ids["cells-txn"]
	if fmt.Sprint(txn.Labels) != "[clients=4 clients=8 clients=16]" || fmt.Sprint(txn.Series[0].Values) != "[100 180 185]" {
		t.Errorf("txn bars %v %v", txn.Labels, txn.Series[0].Values)
	}
	// one latency chart per transaction op and the cycle
	for _, id := range []string{"cells-latency-1", "cells-latency-2", "cells-latency-3", "cells-latency-4", "ladder-1", "cells-throughput-time", "cells-p99-time"} {
		if _, ok := ids[id]; !ok {
			t.Errorf("no chart %s", id)
		}
	}
	l := ids["ladder-1"]
	if fmt.Sprint(l.Series[0].Points) != "[[4 100] [8 180] [16 185]]" || l.Series[1].Axis != "y2" || fmt.Sprint(l.Series[1].Points) != "[[4 100] [8 200] [16 300]]" {
		t.Errorf("ladder %+v", l.Series)
	}
	if !strings.Contains(l.Note, "One repetition: knee not established (16 clients gained +3%)") {
		t.Errorf("ladder note %q, want no knee established at 16 clients on one repetition", l.Note)
	}
	// The comparisons along clients, not against the first cell.
	if !strings.Contains(page, "clients: 4 -&gt; 8 -&gt; 16") || !strings.Contains(page, "4 -&gt; 8") || strings.Contains(page, "vs first") {
		t.Error("the study page lacks the comparison along clients, or still compares with the first cell")
	}
	if n := len(ids["cells-throughput-time"].Series); n != 2 {
		t.Errorf("%d cells over time, want 2 (the third has no result)", n)
	}
	// transactions over time: the transaction ops' counts, not the cycle's
	var want float64
	for _, iop := range runs[0].Intervals[0].Ops {
		if iop.Name != result.CycleOp {
			want += float64(iop.Count) / 10
		}
	}
	if got := ids["cells-throughput-time"].Series[0].Points[0][1]; got != round3(want) {
		t.Errorf("txn/s over time starts at %v, want %v", got, want)
	}
}

func TestStudyHTMLWithoutClients(t *testing.T) {
	s, runs := studyFixture()
	for i := range s.Cells {
		s.Cells[i].Settings = []study.Setting{{Key: "variant", Value: []string{"jsonb", "manual", "text"}[i]}}
		s.Cells[i].Label = "variant=" + s.Cells[i].Settings[0].Value
	}
	var b bytes.Buffer
	if err := StudyHTML(&b, s, runs, nil); err != nil {
		t.Fatal(err)
	}
	_, d := dataOf(t, b.String())
	for _, sec := range d.Sections {
		if sec.Title == "concurrency ladder" {
			t.Error("a ladder without varying clients")
		}
	}
}

// FuzzHTMLEscaping: whatever an op name, error class, error sample or URL
// holds, the page keeps its own three scripts, no tag from the result
// appears, and the data carries the name exactly.
func FuzzHTMLEscaping(f *testing.F) {
	f.Add(hostile, "timeout", "ERROR: <b>bold</b>", "postgres://u@h/db")
	f.Add("<!--", "<script>", "</SCRIPT >", `"><svg onload=alert(1)>`)
	f.Add("\u2028\u2029", "a&b", "]]>", "javascript:alert(1)")
	baseline := render1(f, htmlResult()) // what the page holds of its own
	f.Fuzz(func(t *testing.T, name, class, sample, url string) {
		if !utf8.ValidString(name) || name == "" {
			return // JSON carries only valid UTF-8; op names are Go strings from code or scripts
		}
		r := htmlResult()
		r.Ops[1].Name = name
		r.Ops[1].Errors = map[string]int64{class: 1}
		r.Ops[1].ErrorSamples = map[string]string{class: sample}
		r.Config.DB = url
		for i := range r.Intervals {
			r.Intervals[i].Ops[1].Name = name
		}
		page := render1(t, r)
		if n := strings.Count(strings.ToLower(page), "</script"); n != 3 {
			t.Fatalf("%d </script in the page, want 3", n)
		}
		for _, s := range []string{name, class, sample, url} {
			if strings.ContainsAny(s, "<>") && strings.Contains(page, s) && !strings.Contains(baseline, s) {
				t.Fatalf("%q reached the page unescaped", s)
			}
		}
		_, d := dataOf(t, page)
		found := false
		for _, c := range d.Sections[0].Charts {
			for _, s := range c.Series {
				found = found || s.Label == name
			}
		}
		if !found {
			t.Fatalf("op %q is not in the charts' data", name)
		}
	})
}

// TestHTMLLeavesOutTheDrain: the short interval after the window closed is
// not charted (its rates would be a drop or a spike), the tables still
// count it.
func TestHTMLLeavesOutTheDrain(t *testing.T) {
	r := htmlResult()
	r.MeasuredS = 60
	last := r.Intervals[len(r.Intervals)-1]
	last.ElapsedS, last.LengthS = 60.2, 0.2
	r.Intervals = append(r.Intervals, last)
	s := r.Telemetry.Series[len(r.Telemetry.Series)-1]
	s.ElapsedS = 60.2
	r.Telemetry.Series = append(r.Telemetry.Series, s)
	_, d := dataOf(t, render1(t, r))
	for _, sec := range d.Sections {
		for _, c := range sec.Charts {
			for _, se := range c.Series {
				for _, p := range se.Points {
					if c.Kind == "line" && c.X.Title == "elapsed (s)" && p[0] > 60 {
						t.Errorf("chart %s series %s charts the drain at %.1f s", c.ID, se.Label, p[0])
					}
				}
			}
		}
	}
	if n := len(r.Intervals); n != 7 {
		t.Errorf("the result lost its drain interval: %d intervals", n)
	}
}

// TestStudyHTMLHasEveryMarkdownSection: every section of study.md is on
// study.html (faults: recovery, client vs server and database were not),
// and the cells' faults are marked on its charts over time.
func TestStudyHTMLHasEveryMarkdownSection(t *testing.T) {
	s := &study.Summary{Format: study.Format, Workload: "train-events", Vary: []study.Vary{{Key: "clients", Values: []string{"4", "8"}}}, Repeat: 1}
	var all [][]*result.Result
	var firsts []*result.Result
	first := 0.4
	for i, n := range []int{4, 8} {
		r := htmlResult()
		r.Faults = []result.Fault{{AtS: 2, Kind: "kill-server", Arg: "1s", Injected: true, Recovery: &result.Recovery{FirstOKS: &first}}}
		c := study.Cell{Settings: []study.Setting{{Key: "clients", Value: fmt.Sprint(n)}}}
		s.Cells = append(s.Cells, study.Summarise(c, []*result.Result{r}, []string{fmt.Sprintf("cell%02d-rep1.json", i+1)}))
		all, firsts = append(all, []*result.Result{r}), append(firsts, r)
	}
	var md strings.Builder
	StudyMarkdown(&md, s, all)
	var heads []string
	for _, l := range strings.Split(md.String(), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			heads = append(heads, h)
		}
	}
	for _, want := range []string{"faults: recovery", "client vs server", "database", "summary (all transactions)"} {
		if !slices.Contains(heads, want) {
			t.Fatalf("the fixture's study.md lacks the section %q: %v", want, heads)
		}
	}
	var b bytes.Buffer
	if err := StudyHTML(&b, s, firsts, all); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, h := range heads {
		if !strings.Contains(page, ">"+html.EscapeString(h)+"<") {
			t.Errorf("study.html lacks study.md's section %q", h)
		}
	}
	_, d := dataOf(t, page)
	if len(d.Marks) != 1 || d.Marks[0].X != 2 || !strings.Contains(d.Marks[0].Label, "kill-server") {
		t.Errorf("fault marks %+v, want kill-server at 2 s", d.Marks)
	}
}

// TestHTMLServerRatesOverTheirSpan: a server sample's rate is its counters
// over the time they cover: the last one's runs on until the final
// reading, after the clients were gone, and its commits over the last
// interval's length alone made a jump at the end of the chart.
func TestHTMLServerRatesOverTheirSpan(t *testing.T) {
	r := htmlResult()
	ss := r.Telemetry.Series
	for i := range ss {
		ss[i].SpanS = 10
	}
	last := &ss[len(ss)-1]
	last.Database["xact_commit"] += 2400 // what completed after the window, and the late
	last.SpanS = 20                      // over the interval and the 10 s after it
	_, d := dataOf(t, render1(t, r))
	for _, s := range d.Sections {
		for _, c := range s.Charts {
			if c.ID != "db-xact" {
				continue
			}
			pts := c.Series[0].Points
			if got, want := pts[len(pts)-1], [2]float64{60, 4850.0 / 20}; got != want {
				t.Errorf("last commits point %v, want %v (over the 20 s it covers)", got, want)
			}
			if got, want := pts[0], [2]float64{20, 241}; got != want {
				t.Errorf("first commits point %v, want %v", got, want)
			}
			return
		}
	}
	t.Fatal("no db-xact chart")
}
