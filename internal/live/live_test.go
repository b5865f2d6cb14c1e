package live

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/live/promtext"
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// iop makes an interval op whose histogram holds values (milliseconds).
func iop(t *testing.T, name string, retries int64, classes map[string]int64, skipped int64, ms ...float64) result.IntervalOp {
	t.Helper()
	h := metrics.NewHist()
	for _, v := range ms {
		h.Record(time.Duration(v * float64(time.Millisecond)))
	}
	var errs int64
	for _, n := range classes {
		errs += n
	}
	kind, ok := runnerKinds[name]
	if !ok {
		kind = result.KindTxn
	}
	return result.IntervalOp{Name: name, Kind: kind, Retries: retries, Errors: errs, ErrorClasses: classes, Skipped: skipped, Summary: h.Summary(), Hist: h}
}

// runnerKinds are the kinds of the ops the runner adds, by name.
var runnerKinds = map[string]result.Kind{result.CycleOp: result.KindCycle, "pool_wait": result.KindWait, "connect": result.KindWait, result.LagOp: result.KindLag}

// crafted is two intervals of a train-events-like run through a pool,
// with a rate.
func crafted(t *testing.T) []result.Interval {
	return []result.Interval{
		{ElapsedS: 1, LengthS: 1, Ops: []result.IntervalOp{
			iop(t, "add", 2, map[string]int64{"serialization": 1}, 0, 0.3, 0.8, 4, 12),
			iop(t, "process", 0, nil, 0, 1, 2),
			iop(t, result.CycleOp, 0, nil, 1, 20, 40),
			iop(t, "pool_wait", 0, nil, 0, 0.05, 0.2, 3),
			iop(t, result.LagOp, 0, nil, 0, 0.01, 1),
		}},
		{ElapsedS: 2, LengthS: 1, Ops: []result.IntervalOp{
			iop(t, "add", 1, map[string]int64{"serialization": 2, "connection_lost": 1}, 0, 0.5, 2500, 40000),
			iop(t, "process", 0, map[string]int64{"weird \"class\"": 1}, 0, 7),
			iop(t, result.CycleOp, 0, nil, 0, 2600),
			iop(t, "pool_wait", 0, nil, 0, 0.1),
			iop(t, result.LagOp, 0, nil, 0, 0.02),
		}},
	}
}

func info(cell string) Info {
	return Info{Cell: cell, Workload: "train-events", Database: "postgres://bench:xxxxx@db:5432/app", ServerVersion: "PostgreSQL 15.8", Version: "v1.2.3", Clients: 8}
}

func scrape(t *testing.T, m *Metrics) ([]promtext.Family, string) {
	t.Helper()
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	fams, err := promtext.Parse(b.String())
	if err != nil {
		t.Fatalf("invalid exposition: %v\n%s", err, b.String())
	}
	return fams, b.String()
}

// value returns the sample of family name whose labels include want.
func value(t *testing.T, fams []promtext.Family, name string, want ...string) float64 {
	t.Helper()
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
	f := promtext.Find(fams, base)
	if f == nil {
		t.Fatalf("no family %s", base)
	}
next:
	for _, s := range f.Samples {
		if s.Name != name {
			continue
		}
		for i := 0; i+1 < len(want); i += 2 {
			if s.Label(want[i]) != want[i+1] {
				continue next
			}
		}
		return s.Value
	}
	t.Fatalf("no sample %s%v", name, want)
	return 0
}

func TestExpositionGolden(t *testing.T) {
	m := New()
	m.Begin(info(""))
	_, before := scrape(t, m)
	if !strings.Contains(before, "txnbench_measuring 0\n") {
		t.Errorf("measuring before Measuring:\n%s", before)
	}
	m.Measuring()
	for _, iv := range crafted(t) {
		if err := m.Observe(iv); err != nil {
			t.Fatal(err)
		}
	}
	fams, text := scrape(t, m)
	plain.Golden(t, "run.prom", text)

	// The numbers, independently of the golden file.
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"txnbench_ops_total", []string{"op", "add", "kind", "transaction"}, 7},
		{"txnbench_ops_total", []string{"op", "cycle", "kind", "cycle"}, 3},
		{"txnbench_ops_total", []string{"op", "pool_wait", "kind", "wait"}, 4},
		{"txnbench_ops_total", []string{"op", "lag", "kind", "lag"}, 3},
		{"txnbench_errors_total", []string{"op", "add", "class", "serialization"}, 3},
		{"txnbench_errors_total", []string{"op", "add", "class", "connection_lost"}, 1},
		{"txnbench_errors_total", []string{"op", "add", "class", "deadlock"}, 0},
		{"txnbench_errors_total", []string{"op", "process", "class", `weird "class"`}, 1},
		{"txnbench_retries_total", []string{"op", "add"}, 3},
		{"txnbench_skipped_total", []string{"op", "cycle"}, 1},
		{"txnbench_measuring", nil, 1},
		{"txnbench_clients", nil, 8},
		{"txnbench_measured_seconds", nil, 2},
		{"txnbench_run_info", []string{"workload", "train-events", "database", "postgres://bench:xxxxx@db:5432/app", "server_version", "PostgreSQL 15.8", "txnbench_version", "v1.2.3"}, 1},
		// add: 0.3 0.8 4 12 0.5 2500 40000 ms
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "0.00025"}, 0},
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "0.0005"}, 2},
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "0.001"}, 3},
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "0.005"}, 4},
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "2.5"}, 6},
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "30"}, 6},
		{"txnbench_op_latency_seconds_bucket", []string{"op", "add", "le", "+Inf"}, 7},
		{"txnbench_op_latency_seconds_count", []string{"op", "add"}, 7},
	}
	for _, c := range checks {
		if got := value(t, fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %g, want %g", c.name, c.labels, got, c.want)
		}
	}
	sum := value(t, fams, "txnbench_op_latency_seconds_sum", "op", "add")
	if want := (0.3 + 0.8 + 4 + 12 + 0.5 + 2500 + 40000) / 1000; math.Abs(sum-want) > want*0.001 {
		t.Errorf("add latency sum %g s, want %g within 0.1%%", sum, want)
	}
	for _, f := range fams {
		if f.Help == "" {
			t.Errorf("family %s has no help", f.Name)
		}
	}

	m.End()
	fams, _ = scrape(t, m)
	if v := value(t, fams, "txnbench_measuring"); v != 0 {
		t.Errorf("measuring %g after End", v)
	}
}

// TestStudyCells: every series of a study carries its cell; a repeated
// cell keeps adding to its counters; only the running cell measures.
func TestStudyCells(t *testing.T) {
	m := New()
	ivs := crafted(t)
	m.Begin(info("variant=jsonb clients=4"))
	m.Measuring()
	m.Observe(ivs[0])
	m.End()
	m.Begin(info("variant=text\nclients=\"8\"")) // a label value to escape
	m.Observe(ivs[0])
	m.End()
	m.Begin(info("variant=jsonb clients=4")) // the second repetition
	m.Observe(ivs[1])
	fams, text := scrape(t, m)
	plain.Golden(t, "study.prom", text)
	if v := value(t, fams, "txnbench_ops_total", "cell", "variant=jsonb clients=4", "op", "add"); v != 7 {
		t.Errorf("repeated cell: add %g, want 7", v)
	}
	if v := value(t, fams, "txnbench_ops_total", "cell", "variant=text\nclients=\"8\"", "op", "add"); v != 4 {
		t.Errorf("escaped cell: add %g, want 4", v)
	}
	if v := value(t, fams, "txnbench_measuring", "cell", "variant=text\nclients=\"8\""); v != 0 {
		t.Errorf("a finished cell measures: %g", v)
	}
	if v := value(t, fams, "txnbench_measuring", "cell", "variant=jsonb clients=4"); v != 1 {
		t.Errorf("the running cell does not measure: %g", v)
	}
	for _, f := range fams {
		for _, s := range f.Samples {
			if s.Label("cell") == "" {
				t.Errorf("%s%v has no cell", s.Name, s.Labels)
			}
		}
	}
}

func TestObserveErrors(t *testing.T) {
	m := New()
	iv := crafted(t)[0]
	if err := m.Observe(iv); err == nil {
		t.Error("an interval outside a run was accepted")
	}
}

// TestKindFromInterval labels each op with the kind the interval gives
// it, whatever its name or place: a script may call itself lag.
func TestKindFromInterval(t *testing.T) {
	m := New()
	m.Begin(info(""))
	h := metrics.NewHist()
	h.Record(time.Millisecond)
	iv := result.Interval{LengthS: 1}
	for _, o := range []struct {
		name string
		kind result.Kind
	}{{result.LagOp, result.KindTxn}, {"a", result.KindWait}, {result.CycleOp, result.KindCycle}, {"pool_wait", result.KindWait}, {"b", result.KindLag}} {
		iv.Ops = append(iv.Ops, result.IntervalOp{Name: o.name, Kind: o.kind, Summary: h.Summary(), Hist: h})
	}
	if err := m.Observe(iv); err != nil {
		t.Fatal(err)
	}
	fams, _ := scrape(t, m)
	for op, kind := range map[string]string{result.LagOp: "transaction", "a": "wait", result.CycleOp: "cycle", "pool_wait": "wait", "b": "lag"} {
		if v := value(t, fams, "txnbench_ops_total", "op", op, "kind", kind); v != 1 {
			t.Errorf("op %s of kind %s: %g ops", op, kind, v)
		}
	}
}

// TestConcurrentScrapes scrapes while intervals arrive: every scrape is
// valid and the counters never go down (go test -race checks the locking).
func TestConcurrentScrapes(t *testing.T) {
	m := New()
	m.Begin(info(""))
	ivs := crafted(t)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1.0
			for {
				select {
				case <-done:
					return
				default:
				}
				var b bytes.Buffer
				m.WriteTo(&b)
				fams, err := promtext.Parse(b.String())
				if err != nil {
					t.Error(err)
					return
				}
				if f := promtext.Find(fams, "txnbench_ops_total"); f != nil && len(f.Samples) > 0 {
					if v := f.Samples[0].Value; v < last {
						t.Errorf("ops_total went down from %g to %g", last, v)
					} else {
						last = v
					}
				}
			}
		}()
	}
	for i := 0; i < 200; i++ {
		if err := m.Observe(ivs[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	fams, _ := scrape(t, m)
	if v := value(t, fams, "txnbench_ops_total", "op", "add"); v != 100*7 {
		t.Errorf("add %g after 200 intervals, want 700", v)
	}
}

func TestServer(t *testing.T) {
	m := New()
	m.Begin(info(""))
	m.Observe(crafted(t)[0])
	s, err := Listen("127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	url := s.URL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/metrics") {
		t.Errorf("URL %s does not show the real port", url)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ContentType {
		t.Errorf("GET /metrics: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	if _, err := promtext.Parse(string(body)); err != nil || !strings.Contains(string(body), `txnbench_ops_total{op="add",kind="transaction"} 4`) {
		t.Errorf("body (%v):\n%s", err, body)
	}
	for path, code := range map[string]int{"/": 200, "/nothing": 404} {
		resp, err := http.Get(strings.TrimSuffix(url, "/metrics") + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, code)
		}
	}
	resp, err = http.Post(url, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := net.DialTimeout("tcp", s.Addr().String(), time.Second); err == nil {
		t.Error("still listening after Close")
	}
}

// TestURLSaysWhereItListens: an address without a host listens on every
// interface, and the URL says so ([::] or 0.0.0.0), not localhost; a
// host given is the URL's.
func TestURLSaysWhereItListens(t *testing.T) {
	for addr, prefix := range map[string]string{":0": "", "0.0.0.0:0": "http://0.0.0.0:", "localhost:0": "http://localhost:", "127.0.0.1:0": "http://127.0.0.1:"} {
		s, err := Listen(addr, New())
		if err != nil {
			t.Fatal(err)
		}
		url, every := s.URL(), s.EveryInterface()
		s.Close()
		if prefix == "" && !strings.HasPrefix(url, "http://[::]:") && !strings.HasPrefix(url, "http://0.0.0.0:") || !strings.HasPrefix(url, prefix) || strings.HasSuffix(url, ":0/metrics") {
			t.Errorf("Listen(%q): URL %s", addr, url)
		}
		if want := addr == ":0" || addr == "0.0.0.0:0"; every != want {
			t.Errorf("Listen(%q): EveryInterface %v, want %v", addr, every, want)
		}
	}
}

func TestListenBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	_, err = Listen(addr, New())
	if err == nil || !strings.Contains(err.Error(), addr+" is already in use") || !strings.Contains(err.Error(), "port 0") {
		t.Errorf("Listen on a busy port = %v, want an error naming the address and the fix", err)
	}
}

func TestParseAddr(t *testing.T) {
	cases := []struct {
		addr string
		port int
		ok   bool
	}{
		{"127.0.0.1:9464", 9464, true},
		{":9464", 9464, true},
		{"localhost:0", 0, true},
		{"[::1]:9464", 9464, true},
		{"9464", 0, false},
		{"127.0.0.1", 0, false},
		{"127.0.0.1:http", 0, false},
		{"127.0.0.1:65536", 0, false},
		{"127.0.0.1:-1", 0, false},
		{"127.0.0.1:+80", 0, false},
		{"http://127.0.0.1:9464", 0, false},
		{"::1:9464", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		_, port, err := ParseAddr(c.addr)
		if (err == nil) != c.ok || port != c.port {
			t.Errorf("ParseAddr(%q) = %d, %v; want ok %v port %d", c.addr, port, err, c.ok, c.port)
		}
		if err != nil && !strings.Contains(err.Error(), "127.0.0.1:9464") {
			t.Errorf("ParseAddr(%q) error %q gives no example", c.addr, err)
		}
	}
}

func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:9464", ":0", "[::1]:80", "a:b:c", "host:99999", " :1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		host, port, err := ParseAddr(addr)
		if err != nil {
			return
		}
		if port < 0 || port > 65535 {
			t.Fatalf("ParseAddr(%q) accepted port %d", addr, port)
		}
		if got := net.JoinHostPort(host, fmt.Sprint(port)); got != addr && ":"+fmt.Sprint(port) != addr && !strings.HasSuffix(addr, fmt.Sprint(port)) {
			t.Fatalf("ParseAddr(%q) = %q %d", addr, host, port)
		}
	})
}

// FuzzLabelEscaping: any op name or cell survives writing and strict
// parsing unchanged (as UTF-8).
func FuzzLabelEscaping(f *testing.F) {
	for _, s := range []string{"add", `a"b`, `a\b`, "a\nb", `\n`, "\xff", `"\"`} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, op, cell string) {
		h := metrics.NewHist()
		h.Record(time.Millisecond)
		m := New()
		m.Begin(Info{Cell: cell, Workload: op})
		if err := m.Observe(result.Interval{LengthS: 1, Ops: []result.IntervalOp{{Name: op, Summary: h.Summary(), Hist: h}}}); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		m.WriteTo(&b)
		fams, err := promtext.Parse(b.String())
		if err != nil {
			t.Fatalf("op %q cell %q: %v\n%s", op, cell, err, b.String())
		}
		s := promtext.Find(fams, "txnbench_ops_total").Samples[0]
		if s.Label("op") != strings.ToValidUTF8(op, "\uFFFD") || s.Label("cell") != strings.ToValidUTF8(cell, "\uFFFD") || s.Value != 1 {
			t.Fatalf("op %q cell %q came back as %+v", op, cell, s)
		}
	})
}

// BenchmarkObserve is the cost of one progress interval (5 ops) to the
// ticker goroutine: merging the histograms.
func BenchmarkObserve(b *testing.B) {
	t := &testing.T{}
	ivs := crafted(t)
	m := New()
	m.Begin(info(""))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Observe(ivs[i%2])
	}
}

// BenchmarkScrape is the cost of one scrape of a run with 5 ops.
func BenchmarkScrape(b *testing.B) {
	t := &testing.T{}
	m := New()
	m.Begin(info(""))
	for _, iv := range crafted(t) {
		m.Observe(iv)
	}
	var buf bytes.Buffer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		m.WriteTo(&buf)
	}
	b.ReportMetric(float64(buf.Len()), "bytes/scrape")
}

// TestTrackIsAnObserver: a tracked run given to the runner as an observer
// measures from Start, counts its Ticks and is over at Stop.
func TestTrackIsAnObserver(t *testing.T) {
	m := New()
	var o runner.Observer = m.Track(info(""))
	if fams, _ := scrape(t, m); value(t, fams, "txnbench_measuring") != 0 {
		t.Error("measuring before Start")
	}
	o.Start()
	if fams, _ := scrape(t, m); value(t, fams, "txnbench_measuring") != 1 {
		t.Error("not measuring after Start")
	}
	for _, iv := range crafted(t) {
		o.Tick(iv)
	}
	o.WindowEnd()
	o.Stop()
	fams, _ := scrape(t, m)
	if v := value(t, fams, "txnbench_ops_total", "op", "add", "kind", "transaction"); v != 7 {
		t.Errorf("add ops %g, want 7", v)
	}
	if v := value(t, fams, "txnbench_measuring"); v != 0 {
		t.Errorf("measuring %g after Stop", v)
	}
}
