package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// histOf records n samples spread evenly from lo to hi milliseconds.
func histOf(n int, lo, hi float64) *metrics.Hist {
	h := metrics.NewHist()
	for i := 0; i < n; i++ {
		v := lo
		if n > 1 {
			v += (hi - lo) * float64(i) / float64(n-1)
		}
		h.Record(time.Duration(v * float64(time.Millisecond)))
	}
	return h
}

func opOf(name string, clients int, h *metrics.Hist) result.Op {
	return result.Op{Name: name, Clients: clients, Summary: h.Summary(), Hist: h}
}

// fixedResult is a deterministic result exercising every part of Summary.
func fixedResult() *result.Result {
	add := opOf("add", 8, histOf(4800, 12, 95))
	add.Retries = 37
	add.Errors = map[string]int64{"serialization": 35, "timeout": 2, "connection_lost": 1}
	add.ErrorSamples = map[string]string{
		"serialization":   "process: ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)",
		"timeout":         "add: timeout: context deadline exceeded\nsecond line that is not shown",
		"connection_lost": "add: failed to receive message: unexpected EOF while the server was shutting down, after " + strings.Repeat("a very long explanation ", 5),
	}
	process := opOf("process", 8, histOf(4790, 8, 70))
	archive := opOf("archive", 8, histOf(4785, 10, 130))
	cycle := opOf(result.CycleOp, 8, histOf(4785, 140, 410))
	cycle.Kind = result.KindCycle

	inv := &result.Check{}
	inv.Add("events accounted for", true, "%d events, %d archived", 20000+4800*10, 30123)
	inv.Add("one status row per event", true, "%d rows", 17877)
	inv.Add("statuses valid", true, "")
	inv.UnknownCommits = 2
	return &result.Result{
		Format:   result.Format,
		Tool:     result.Tool{Version: "v0.1.0", Go: "go1.26.0"},
		Workload: "train-events",
		Settings: map[string]any{
			"variant": "jsonb", "payload": "JSONB", "flat_columns": "generated",
			"inverted_index": true, "rows": 20000, "min_batch": 10, "max_batch": 100,
			"delay": "100ms",
		},
		Notes: []string{"the payload index is built after the initial load"},
		Config: result.Config{
			DB: "postgres://bench:xxxxx@127.0.0.1:5432/bench", Clients: 8,
			Duration: "1m0s", Warmup: "10s", Seed: 7, MaxTries: 3,
		},
		Server:    result.Server{Dialect: "PostgreSQL", Version: "15.18", Banner: "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)"},
		Started:   time.Date(2025, 12, 5, 10, 0, 0, 0, time.UTC),
		Ended:     time.Date(2025, 12, 5, 10, 1, 10, 0, time.UTC),
		MeasuredS: 60,
		// the cycle last: the table must still show it first
		Ops:        []result.Op{add, process, archive, cycle},
		Invariants: inv,
		Client:     result.Client{CPUUserS: 3.21, CPUSysS: 1.09, MaxRSSMB: 38.4, CPUPerCycleMS: 0.899},
	}
}

// summaryOf is Summary's text of r.
func summaryOf(r *result.Result) string {
	var b bytes.Buffer
	Summary(&b, r)
	return b.String()
}

func TestSummaryGolden(t *testing.T) {
	plain.Golden(t, "summary.golden", summaryOf(fixedResult()))
}

func TestSummaryMergedInterruptedGolden(t *testing.T) {
	r := fixedResult()
	r.Sources = 3
	r.Interrupted = true
	r.Config.Duration = ""
	r.Config.Warmup = ""
	r.Config.Iterations = 1000
	r.Settings, r.Notes = map[string]any{"variant": "text"}, nil
	for i := range r.Ops {
		r.Ops[i].Errors, r.Ops[i].ErrorSamples = nil, nil
	}
	r.Invariants = nil
	r.Client.CPUPerCycleMS = 0
	plain.Golden(t, "summary_merged.golden", summaryOf(r))
}

func TestSummaryParts(t *testing.T) {
	out := summaryOf(fixedResult())
	plain.Contains(t, "Summary", out,
		"workload   train-events (delay=100ms flat_columns=generated inverted_index=true max_batch=100 min_batch=10 payload=JSONB rows=20000 variant=jsonb)\n",
		"database   PostgreSQL 15.18  postgres://bench:xxxxx@127.0.0.1:5432/bench\n",
		"run        8 clients, duration 1m0s, warm-up 10s, max tries 3, seed 7\n",
		"note       the payload index is built after the initial load\n",
		"errors by class",
		"commits with unknown outcome: 2\n",
		"peak memory 38 MB",
		"(7% of one core)",
		"0.899 ms per cycle",
	)
	if !strings.HasSuffix(out, "invariants: OK\n") {
		t.Errorf("Summary does not end with invariants: OK\n%s", out)
	}
	if strings.Contains(out, "second line that is not shown") {
		t.Error("an error sample's second line is shown")
	}
	if strings.Contains(out, "notes=") {
		t.Error("notes appear among the settings")
	}
}

func TestTableOrderAndAlignment(t *testing.T) {
	var b bytes.Buffer
	Table(&b, fixedResult())
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("table has %d lines, want a header and 4 ops:\n%s", len(lines), b.String())
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[0]), "elapsed") {
		t.Errorf("first line %q is not the header", lines[0])
	}
	wantOrder := []string{result.CycleOp, "add", "process", "archive"}
	for i, name := range wantOrder {
		fields := strings.Fields(lines[i+1])
		if len(fields) != 13 || fields[1] != name {
			t.Errorf("row %d = %q, want op %s with 13 columns", i+1, lines[i+1], name)
		}
		if fields[0] != "60" {
			t.Errorf("row %d elapsed = %q, want 60", i+1, fields[0])
		}
	}
	// The last column is right-aligned, so every line has the same width.
	for i, l := range lines {
		if len(l) != len(lines[0]) {
			t.Errorf("line %d is %d wide, header is %d:\n%s", i, len(l), len(lines[0]), b.String())
		}
	}
	// add: 4,800 ops over 60 s, 37 retries, 38 errors.
	add := strings.Fields(lines[2])
	if add[3] != "4,800" || add[4] != "80.0" || add[11] != "37" || add[12] != "38" {
		t.Errorf("add row = %v, want ops 4,800, ops/s 80.0, retries 37, errors 38", add)
	}
}

func TestTableZeroWindow(t *testing.T) {
	r := fixedResult()
	r.MeasuredS = 0
	var b bytes.Buffer
	Table(&b, r)
	if strings.Contains(b.String(), "Inf") || strings.Contains(b.String(), "NaN") {
		t.Errorf("a zero window gives non-numbers:\n%s", b.String())
	}
	if fields := strings.Fields(strings.Split(b.String(), "\n")[1]); fields[4] != "0.0" {
		t.Errorf("ops/s over a zero window = %q, want 0.0", fields[4])
	}
}

func TestErrorsOmittedWithoutErrors(t *testing.T) {
	r := fixedResult()
	r.Ops[0].Errors = nil
	var b bytes.Buffer
	Errors(&b, r)
	if b.Len() != 0 {
		t.Errorf("Errors wrote %q for a run without errors", b.String())
	}
}

func TestInvariants(t *testing.T) {
	failed := &result.Check{}
	failed.Add("events accounted for", true, "%d events", 100)
	failed.Add("one status row per event", false, "%d events without a status row", 3)
	failed.Add("statuses valid", true, "")

	tests := []struct {
		name  string
		check *result.Check
		want  []string
		last  string
	}{
		{
			name:  "violated",
			check: failed,
			want: []string{
				"  ok   events accounted for             100 events\n",
				"  FAIL one status row per event         3 events without a status row\n",
			},
			last: "invariants: VIOLATED",
		},
		{
			name:  "ok with unknown commits",
			check: &result.Check{OK: true, Items: []result.CheckItem{{Name: "x", OK: true, Detail: "fine"}}, UnknownCommits: 4},
			want:  []string{"  ok   x", "  commits with unknown outcome: 4\n"},
			last:  "invariants: OK",
		},
		{
			name:  "not checked",
			check: nil,
			last:  "invariants: not checked",
		},
		{
			name:  "verified nothing",
			check: &result.Check{NotChecked: "custom scripts"},
			last:  "invariants: not checked (custom scripts)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fixedResult()
			r.Invariants = tc.check
			var b bytes.Buffer
			Invariants(&b, r)
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if !strings.HasSuffix(out, tc.last+"\n") {
				t.Errorf("output does not end with %q:\n%s", tc.last, out)
			}
			if tc.name != "violated" && strings.Contains(out, "FAIL") {
				t.Errorf("FAIL shown for a passing check:\n%s", out)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	iv := result.Interval{
		ElapsedS: 65, // rates use LengthS, not the elapsed time
		LengthS:  5,
		Ops: []result.IntervalOp{
			{Name: "add", Retries: 2, Errors: 1, Summary: metrics.Summary{Count: 50, P50: 1.5, P99: 12.5}},
			{Name: "process", Retries: 1, Summary: metrics.Summary{Count: 49, P50: 0.75, P99: 1234.5}},
			{Name: result.CycleOp, Errors: 3, Summary: metrics.Summary{Count: 25, P50: 150, P99: 300.25}},
		},
	}
	want := "    65s | cycle 5.0/s p50 150.00 p99 300.25 | add 10.0/s p50 1.50 p99 12.50 | process 9.8/s p50 0.750 p99 1,234.50 | retries 3 errors 4"
	if got := ProgressLine(iv); got != want {
		t.Errorf("ProgressLine =\n%q\nwant\n%q", got, want)
	}
	if iv.Ops[0].Name != "add" || iv.Ops[2].Name != result.CycleOp {
		t.Error("ProgressLine reordered the interval's ops in place")
	}

	tests := []struct {
		name string
		iv   result.Interval
		want string
	}{
		{
			name: "50 samples over 5 s",
			iv:   result.Interval{ElapsedS: 5, LengthS: 5, Ops: []result.IntervalOp{{Name: "add", Summary: metrics.Summary{Count: 50}}}},
			want: "     5s | add 10.0/s p50 0.00 p99 0.00 | retries 0 errors 0",
		},
		{
			name: "short last interval",
			iv:   result.Interval{ElapsedS: 61.5, LengthS: 0.5, Ops: []result.IntervalOp{{Name: "add", Summary: metrics.Summary{Count: 3}}}},
			want: "  61.5s | add 6.0/s p50 0.00 p99 0.00 | retries 0 errors 0",
		},
		{
			name: "zero length does not divide by zero",
			iv:   result.Interval{ElapsedS: 0, LengthS: 0, Ops: []result.IntervalOp{{Name: "add"}}},
			want: "     0s | add 0.0/s p50 - p99 - | retries 0 errors 0",
		},
		{
			name: "no ops",
			iv:   result.Interval{ElapsedS: 10, LengthS: 1},
			want: "    10s | retries 0 errors 0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProgressLine(tc.iv); got != tc.want {
				t.Errorf("ProgressLine = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	long := strings.Repeat("x", 150)
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"one line", "one line"},
		{"first\nsecond", "first"},
		{strings.Repeat("y", 100), strings.Repeat("y", 100)},
		{long, strings.Repeat("x", 97) + "..."},
		{"short\n" + long, "short"},
	}
	for _, tc := range tests {
		if got := firstLine(tc.in, 100); got != tc.want {
			t.Errorf("firstLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestHeaderDescribesRun: the text header says all the HTML page says about
// how the run ran: ramp, rate, latency limit, isolation (the server's
// default said so) and max tries when set.
func TestHeaderDescribesRun(t *testing.T) {
	r := fixedResult()
	r.Config.Ramp, r.Config.Rate, r.Config.LatencyLimit = "5s", 250, "20ms"
	r.Config.Conn, r.Config.Via, r.Config.Isolation = "session", "pgbouncer", "serializable"
	var b bytes.Buffer
	Header(&b, r)
	want := "run        8 clients, duration 1m0s, ramp 5s, warm-up 10s, rate 250.0/s, latency limit 20ms, conn session, via pgbouncer, isolation serializable, max tries 3, seed 7\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("header:\n%s\nwant the line\n%s", b.String(), want)
	}
	r.Config.Isolation, r.Config.IsolationDefault = "read-committed", true
	b.Reset()
	Header(&b, r)
	if !strings.Contains(b.String(), "isolation read-committed (the database's default), max tries 3") {
		t.Errorf("header of a run at the server's default level:\n%s", b.String())
	}
	r.Config.MaxTries = 0 // results from before max tries was recorded
	b.Reset()
	Header(&b, r)
	if strings.Contains(b.String(), "max tries") {
		t.Errorf("max tries shown unset:\n%s", b.String())
	}
}

// TestTableMicrosecondsAndNothingMeasured: a latency of a few
// microseconds keeps its digits (it printed 0.00), and an op that
// completed nothing shows "-" for its latencies, not 0.00.
func TestTableMicrosecondsAndNothingMeasured(t *testing.T) {
	r := fixedResult()
	fast := opOf("select", 8, histOf(4800, 0.004, 0.009))
	none := opOf("refused", 8, histOf(0, 0, 0))
	r.Ops = append(r.Ops, fast, none)
	var b bytes.Buffer
	Table(&b, r)
	var sel, ref string
	for _, l := range strings.Split(b.String(), "\n") {
		switch f := strings.Fields(l); {
		case len(f) > 1 && f[1] == "select":
			sel = l
		case len(f) > 1 && f[1] == "refused":
			ref = l
		}
	}
	if f := strings.Fields(sel); len(f) < 6 || f[5] == "0.00" || !strings.HasPrefix(f[5], "0.00") {
		t.Errorf("a 4 us op's mean reads %q:\n%s", f, b.String())
	}
	if f := strings.Fields(ref); len(f) < 11 || f[5] != "-" || f[10] != "-" {
		t.Errorf("an op that completed nothing reads %q:\n%s", f, b.String())
	}
	// the HTML page's per-op table alike
	var h bytes.Buffer
	if err := HTML(&h, r); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	i := strings.Index(page, ">refused<")
	if i < 0 {
		t.Fatal("no refused row on the page")
	}
	row, _, _ := strings.Cut(page[i:], "</tr>")
	if strings.Contains(row, "0.00") || strings.Count(row, ">-<") < 6 {
		t.Errorf("the page's row of an op that completed nothing: %s", row)
	}
}

// TestSummaryNetworkWarning: a shaped network whose round trip during the
// window was more than 20% off what was asked is warned of under the
// network line, with the proxy's CPU; one within it is not; the footer
// prints the result's stored limit; the run's HTML page shows both.
func TestSummaryNetworkWarning(t *testing.T) {
	r := fixedResult()
	r.Network = &result.Network{Shape: "rtt=1ms", RTTMs: 1, MeasuredRTTMs: 1.01, WindowRTTMs: 45.2, WindowRTTProbes: 98, ProxyCPUS: 31.4}
	r.LimitedBy = &result.Limit{Part: "proxy", Line: "the network proxy (52% of the machine's CPU)", ThisMachine: true}
	plain.Contains(t, "Summary", summaryOf(r),
		"network    rtt=1ms, measured rtt 1.01 ms idle, 45.20 ms during the run (median of 98)\n",
		"WARNING    the round trip during the run was 45.20 ms, not the rtt=1ms asked (1.01 ms on the idle path before it); the proxy used 31.40 s (52% of one core)\n",
		"\nlimited by: the network proxy (52% of the machine's CPU); it shared the machine's cores with the rest of the run: this machine's limit",
	)
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	plain.Contains(t, "the run's page", b.String(), "limited by", "the network proxy (52% of the machine&#39;s CPU)", "the round trip during the run was 45.20 ms")
	r.Network.WindowRTTMs = 1.1
	if out := summaryOf(r); strings.Contains(out, "WARNING") {
		t.Errorf("a round trip 10%% off is warned of:\n%s", out)
	}
}
