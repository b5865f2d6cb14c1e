package result_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// hist records each value in milliseconds.
func hist(msValues ...float64) *metrics.Hist {
	h := metrics.NewHist()
	for _, v := range msValues {
		h.Record(time.Duration(v * float64(time.Millisecond)))
	}
	return h
}

// span returns n values from lo to hi ms, evenly spaced.
func span(n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo
		if n > 1 {
			v[i] += (hi - lo) * float64(i) / float64(n-1)
		}
	}
	return v
}

func op(name string, clients int, retries int64, errs map[string]int64, samples map[string]string, msValues ...float64) result.Op {
	h := hist(msValues...)
	return result.Op{
		Name: name, Kind: kindOf(name), Clients: clients, Retries: retries,
		Errors: errs, ErrorSamples: samples,
		Summary: h.Summary(), Hist: h,
	}
}

// kindOf is the kind the runner gives an op of that name.
func kindOf(name string) result.Kind {
	if name == result.CycleOp {
		return result.KindCycle
	}
	return result.KindTxn
}

func intervalOp(t *testing.T, name string, retries, errs int64, msValues ...float64) result.IntervalOp {
	t.Helper()
	h := hist(msValues...)
	return result.IntervalOp{Name: name, Kind: kindOf(name), Retries: retries, Errors: errs, Summary: h.Summary(), Hist: h}
}

var t0 = time.Date(2025, 12, 5, 10, 0, 0, 0, time.UTC)

// samples counts sample's results: each starts a nanosecond after the
// one before, so that two are two parts of a run, not one part twice
// (which Merge refuses).
var samples atomic.Int64

// sample builds a complete result; scale shifts its latencies so two
// samples hold different values.
func sample(t *testing.T, scale float64, clients int, ok bool) *result.Result {
	t.Helper()
	started := t0.Add(time.Duration(samples.Add(1)))
	s := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			out[i] = v[i] * scale
		}
		return out
	}
	inv := &result.Check{}
	inv.Add("events accounted for", true, "%d of %d", 20100, 20100)
	inv.Add("status rows", ok, "%d orphaned", map[bool]int{true: 0, false: 3}[ok])
	inv.UnknownCommits = 1
	return &result.Result{
		Format:   result.Format,
		Tool:     result.Tool{Version: "v0.1.0", Go: "go1.26.0"},
		Workload: "train-events",
		Settings: map[string]any{"variant": "jsonb", "rows": float64(20000), "flat_columns": true, "delay": "100ms"},
		Config: result.Config{
			DB: "postgres://u:xxxxx@h/db", Clients: clients, Duration: "1m0s", Warmup: "5s",
			Seed: 42, MaxTries: 3, PGConf: []string{"shared_buffers=256MB"},
			Args: []string{"run", "train-events", "--clients", "4"},
		},
		Server:    result.Server{Dialect: "PostgreSQL", Version: "15.18", Banner: "PostgreSQL 15.18 on x86_64"},
		Machine:   result.Machine{Hostname: "bench1", OS: "linux", Arch: "amd64", CPUs: 2},
		Started:   started,
		Ended:     t0.Add(65 * time.Second),
		MeasuredS: 60,
		Ops: []result.Op{
			op("add", clients, 2, map[string]int64{"serialization": 2, "timeout": 1},
				map[string]string{"serialization": "could not serialize access (SQLSTATE 40001)", "timeout": "timeout: context deadline exceeded"},
				s(span(40, 5, 80))...),
			op("process", clients, 0, nil, nil, s(span(30, 3, 30))...),
			op(result.CycleOp, clients, 0, nil, nil, s(span(20, 150, 400))...),
		},
		Intervals: []result.Interval{
			{ElapsedS: 30, LengthS: 30, Ops: []result.IntervalOp{
				intervalOp(t, "add", 1, 1, s(span(20, 5, 40))...),
				intervalOp(t, result.CycleOp, 0, 0, s(span(10, 150, 300))...),
			}},
			{ElapsedS: 60, LengthS: 30, Ops: []result.IntervalOp{
				intervalOp(t, "add", 1, 2, s(span(20, 40, 80))...),
				intervalOp(t, result.CycleOp, 0, 0, s(span(10, 300, 400))...),
			}},
		},
		Invariants: inv,
		Client:     result.Client{CPUUserS: 1.5, CPUSysS: 0.5, MaxRSSMB: 40, CPUPerCycleMS: 100},
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	r := sample(t, 1, 4, true)
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}

	if got.Format != result.Format || got.Workload != r.Workload || got.Tool != r.Tool ||
		got.Server != r.Server || got.Machine != r.Machine || got.Client != r.Client ||
		got.MeasuredS != r.MeasuredS || got.Interrupted != r.Interrupted || got.Sources != r.Sources {
		t.Errorf("scalar fields differ:\n got %+v\nwant %+v", got, r)
	}
	if !got.Started.Equal(r.Started) || !got.Ended.Equal(r.Ended) {
		t.Errorf("times = %v..%v, want %v..%v", got.Started, got.Ended, r.Started, r.Ended)
	}
	if !reflect.DeepEqual(got.Settings, r.Settings) {
		t.Errorf("Settings = %v, want %v", got.Settings, r.Settings)
	}
	if !reflect.DeepEqual(got.Config, r.Config) {
		t.Errorf("Config = %+v, want %+v", got.Config, r.Config)
	}
	if !reflect.DeepEqual(got.Invariants, r.Invariants) {
		t.Errorf("Invariants = %+v, want %+v", got.Invariants, r.Invariants)
	}
	if g, w := mustJSON(t, got.Intervals), mustJSON(t, r.Intervals); g != w {
		t.Errorf("Intervals differ:\n got %s\nwant %s", g, w)
	}
	// A transaction's kind is explicit in memory but absent from the file,
	// as results have always been written; intervals save no kind. Load
	// makes every kind explicit again, an interval op's from its op.
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(saved), `"kind"`) != 1 || !strings.Contains(string(saved), `"kind": "cycle"`) {
		t.Errorf("the saved kinds are not the cycle's alone:\n%s", saved)
	}
	for i, iv := range got.Intervals {
		for j, o := range iv.Ops {
			if want := r.Intervals[i].Ops[j].Kind; o.Kind != want {
				t.Errorf("interval %d op %s kind = %q, want %q", i, o.Name, o.Kind, want)
			}
		}
	}
	if len(got.Ops) != len(r.Ops) {
		t.Fatalf("%d ops, want %d", len(got.Ops), len(r.Ops))
	}
	for i, want := range r.Ops {
		g := got.Ops[i]
		if g.Name != want.Name || g.Kind != want.Kind || g.Clients != want.Clients || g.Retries != want.Retries {
			t.Errorf("op %d = %s/%s/%d/%d, want %s/%s/%d/%d", i, g.Name, g.Kind, g.Clients, g.Retries, want.Name, want.Kind, want.Clients, want.Retries)
		}
		if len(g.Errors) != len(want.Errors) || (len(want.Errors) > 0 && !reflect.DeepEqual(g.Errors, want.Errors)) {
			t.Errorf("op %s errors = %v, want %v", want.Name, g.Errors, want.Errors)
		}
		if len(g.ErrorSamples) != len(want.ErrorSamples) || (len(want.ErrorSamples) > 0 && !reflect.DeepEqual(g.ErrorSamples, want.ErrorSamples)) {
			t.Errorf("op %s error samples = %v, want %v", want.Name, g.ErrorSamples, want.ErrorSamples)
		}
		if g.Summary != want.Summary {
			t.Errorf("op %s summary = %+v, want %+v", want.Name, g.Summary, want.Summary)
		}
		if g.Hist == nil || g.Hist.Count() != want.Hist.Count() || g.Hist.Summary() != want.Hist.Summary() {
			t.Fatalf("op %s histogram did not round-trip", want.Name)
		}
		for _, q := range []float64{0, 10, 50, 75, 99.9, 100} {
			if a, b := g.Hist.ValueAt(q), want.Hist.ValueAt(q); a != b {
				t.Errorf("op %s p%v = %v, want %v", want.Name, q, a, b)
			}
		}
	}
	if got.Op("add").ErrorCount() != 3 {
		t.Errorf("add ErrorCount = %d, want 3", got.Op("add").ErrorCount())
	}

	// Saving what was loaded gives the same bytes.
	again := filepath.Join(dir, "again.json")
	if err := got.Save(again); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Error("Save(Load(Save(r))) differs from Save(r)")
	}
}

// mustJSON is v as JSON: histograms compare by their encoding.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sample(t, 1, 2, true)
	for i := 0; i < 3; i++ {
		if err := r.Save(path); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "r.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v after Save, want only r.json", names)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".txnbench-*.json")); len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
	if _, err := result.Load(path); err != nil {
		t.Errorf("Load after overwriting: %v", err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(b), "}\n") {
		t.Error("saved file does not end with a newline after the JSON")
	}
}

func TestSaveToMissingDirectory(t *testing.T) {
	r := sample(t, 1, 2, true)
	err := r.Save(filepath.Join(t.TempDir(), "missing", "r.json"))
	if err == nil {
		t.Fatal("Save into a missing directory succeeded")
	}
	if !strings.Contains(err.Error(), "r.json") {
		t.Errorf("error %q does not name the file", err)
	}
}

func TestLoadErrors(t *testing.T) {
	valid, err := json.Marshal(sample(t, 1, 1, true))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(valid, &doc); err != nil {
		t.Fatal(err)
	}
	variant := func(edit func(map[string]any)) string {
		var d map[string]any
		json.Unmarshal(valid, &d)
		edit(d)
		b, _ := json.Marshal(d)
		return string(b)
	}
	firstOp := func(d map[string]any) map[string]any { return d["ops"].([]any)[0].(map[string]any) }
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"not JSON", "elapsed op clients\n60 add 4\n", "is not a txnbench result"},
		{"empty file", "", "is not a txnbench result"},
		{"JSON array", "[1, 2]", "is not a txnbench result"},
		{"no format field", variant(func(d map[string]any) { delete(d, "format") }), "is not a txnbench result"},
		{"other format", variant(func(d map[string]any) { d["format"] = "txnbench-result/2" }), "txnbench-result/2"},
		{"op without histogram", variant(func(d map[string]any) { delete(firstOp(d), "histogram") }), "op add has no histogram"},
		{"op with null histogram", variant(func(d map[string]any) { firstOp(d)["histogram"] = nil }), "op add has no histogram"},
		{"op with a corrupt histogram", variant(func(d map[string]any) { firstOp(d)["histogram"] = "bm90IGEgaGlzdG9ncmFt" }), "histogram"},
		{"interval with a corrupt histogram", variant(func(d map[string]any) {
			d["intervals"].([]any)[0].(map[string]any)["ops"].([]any)[0].(map[string]any)["histogram"] = "bm90IGEgaGlzdG9ncmFt"
		}), "histogram"},
		{"no ops", variant(func(d map[string]any) { d["ops"] = []any{} }), "holds no ops"},
		{"null ops", variant(func(d map[string]any) { delete(d, "ops") }), "holds no ops"},
		{"negative count", variant(func(d map[string]any) { firstOp(d)["count"] = -5 }), "op add has a negative count (-5)"},
		{"negative retries", variant(func(d map[string]any) { firstOp(d)["retries"] = -1 }), "op add has a negative retries"},
		{"negative errors", variant(func(d map[string]any) { firstOp(d)["errors"] = map[string]any{"other": -2} }), "negative count of other errors"},
		{"op without a name", variant(func(d map[string]any) { firstOp(d)["name"] = "" }), "an op has no name"},
		{"negative measured_s", variant(func(d map[string]any) { d["measured_s"] = -1 }), "measured_s -1 is negative"},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := result.Load(path)
			if err == nil {
				t.Fatalf("case %d: Load succeeded, want an error", i)
			}
			if r != nil {
				t.Errorf("Load returned a result with its error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load error = %q, want it to contain %q", err, tc.want)
			}
			if tc.want != "histogram" && !strings.Contains(err.Error(), path) {
				t.Errorf("Load error = %q does not name the file", err)
			}
		})
	}

	_, err = result.Load(filepath.Join(dir, "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestMerge(t *testing.T) {
	a := sample(t, 1, 4, true)
	b := sample(t, 2, 6, true)
	b.Started = t0.Add(-10 * time.Second)
	b.Ended = t0.Add(60 * time.Second)
	b.MeasuredS = 62
	b.Interrupted = true
	b.Ops[0].ErrorSamples = map[string]string{"serialization": "second sample", "deadlock": "deadlock detected (SQLSTATE 40P01)"}
	b.Ops[0].Errors = map[string]int64{"serialization": 5, "deadlock": 1}
	b.Ops[0].Retries = 7
	b.Ops = append(b.Ops, op("archive", 6, 1, nil, nil, span(10, 2, 20)...))
	b.Intervals = append(b.Intervals, result.Interval{ElapsedS: 62, LengthS: 2, Ops: []result.IntervalOp{
		intervalOp(t, "add", 0, 0, 1, 2, 3),
	}})
	b.Client = result.Client{CPUUserS: 2, CPUSysS: 1, MaxRSSMB: 55}
	a.WorkloadCommits, b.WorkloadCommits = 3, 4 // each shard's own
	a.Intervals[0].Ops[0].ErrorClasses = map[string]int64{"deadlock": 2, "timeout": 1}
	b.Intervals[0].Ops[0].ErrorClasses = map[string]int64{"deadlock": 3}
	aAddCount := a.Ops[0].Hist.Count()
	aAddErrors := map[string]int64{"serialization": 2, "timeout": 1}

	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadCommits != 7 {
		t.Errorf("the workload's commits beside its ops: %d, want both shards' 7", m.WorkloadCommits)
	}

	// Op counts add up; percentiles are those of one histogram holding
	// every value.
	for _, name := range []string{"add", "process", result.CycleOp} {
		all := metrics.NewHist()
		all.Merge(a.Op(name).Hist)
		all.Merge(b.Op(name).Hist)
		mo := m.Op(name)
		if mo == nil {
			t.Fatalf("merged result lacks op %s", name)
		}
		if want := a.Op(name).Count + b.Op(name).Count; mo.Count != want || mo.Hist.Count() != want {
			t.Errorf("%s count = %d (hist %d), want %d", name, mo.Count, mo.Hist.Count(), want)
		}
		if mo.Summary != all.Summary() {
			t.Errorf("%s summary = %+v, want %+v", name, mo.Summary, all.Summary())
		}
		if mo.P50 != all.Summary().P50 || mo.P99 != all.Summary().P99 {
			t.Errorf("%s p50/p99 = %v/%v, want %v/%v", name, mo.P50, mo.P99, all.Summary().P50, all.Summary().P99)
		}
		if mo.Clients != 10 {
			t.Errorf("%s clients = %d, want 10", name, mo.Clients)
		}
	}
	if arch := m.Op("archive"); arch == nil || arch.Count != 10 || arch.Hist.Count() != 10 || arch.Retries != 1 {
		t.Errorf("op only in the second result: %+v, want its 10 samples and 1 retry", arch)
	}

	add := m.Op("add")
	if add.Retries != 9 {
		t.Errorf("add retries = %d, want 9", add.Retries)
	}
	wantErrs := map[string]int64{"serialization": 7, "timeout": 1, "deadlock": 1}
	if !reflect.DeepEqual(add.Errors, wantErrs) {
		t.Errorf("add errors = %v, want %v", add.Errors, wantErrs)
	}
	if add.ErrorCount() != 9 {
		t.Errorf("add ErrorCount = %d, want 9", add.ErrorCount())
	}
	wantSamples := map[string]string{
		"serialization": "could not serialize access (SQLSTATE 40001)", // the first one kept
		"timeout":       "timeout: context deadline exceeded",
		"deadlock":      "deadlock detected (SQLSTATE 40P01)",
	}
	if !reflect.DeepEqual(add.ErrorSamples, wantSamples) {
		t.Errorf("add error samples = %v, want %v", add.ErrorSamples, wantSamples)
	}

	if m.Sources != 2 {
		t.Errorf("Sources = %d, want 2", m.Sources)
	}
	if m.Config.Clients != 10 {
		t.Errorf("Config.Clients = %d, want 10", m.Config.Clients)
	}
	if m.MeasuredS != 62 {
		t.Errorf("MeasuredS = %v, want the longest, 62", m.MeasuredS)
	}
	if !m.Started.Equal(b.Started) || !m.Ended.Equal(a.Ended) {
		t.Errorf("window = %v..%v, want %v..%v", m.Started, m.Ended, b.Started, a.Ended)
	}
	if !m.Interrupted {
		t.Error("Interrupted = false, want true when one result was interrupted")
	}
	if m.Client.CPUUserS != 3.5 || m.Client.CPUSysS != 1.5 || m.Client.MaxRSSMB != 55 {
		t.Errorf("Client = %+v, want user 3.5 sys 1.5 rss 55", m.Client)
	}
	// 5 s of CPU over 40 cycles.
	if got := m.Client.CPUPerCycleMS; math.Abs(got-125) > 1e-9 {
		t.Errorf("CPUPerCycleMS = %v, want 125", got)
	}

	if m.Invariants == nil || !m.Invariants.OK || len(m.Invariants.Items) != 4 || m.Invariants.UnknownCommits != 2 {
		t.Errorf("Invariants = %+v, want OK with 4 items and 2 unknown commits", m.Invariants)
	}

	// Intervals merge index by index.
	if len(m.Intervals) != 3 {
		t.Fatalf("%d intervals, want 3", len(m.Intervals))
	}
	for i := 0; i < 2; i++ {
		iv := m.Intervals[i]
		if iv.ElapsedS != a.Intervals[i].ElapsedS || iv.LengthS != a.Intervals[i].LengthS {
			t.Errorf("interval %d = %v/%v, want %v/%v", i, iv.ElapsedS, iv.LengthS, a.Intervals[i].ElapsedS, a.Intervals[i].LengthS)
		}
		if len(iv.Ops) != 2 {
			t.Fatalf("interval %d has %d ops, want 2", i, len(iv.Ops))
		}
		for j, o := range iv.Ops {
			h := o.Hist
			want := a.Intervals[i].Ops[j].Count + b.Intervals[i].Ops[j].Count
			if h.Count() != want || o.Count != want {
				t.Errorf("interval %d op %s count = %d (hist %d), want %d", i, o.Name, o.Count, h.Count(), want)
			}
			if o.Summary != h.Summary() {
				t.Errorf("interval %d op %s summary = %+v, histogram says %+v", i, o.Name, o.Summary, h.Summary())
			}
			if wr, we := a.Intervals[i].Ops[j].Retries+b.Intervals[i].Ops[j].Retries, a.Intervals[i].Ops[j].Errors+b.Intervals[i].Ops[j].Errors; o.Retries != wr || o.Errors != we {
				t.Errorf("interval %d op %s retries/errors = %d/%d, want %d/%d", i, o.Name, o.Retries, o.Errors, wr, we)
			}
		}
	}
	if got, want := m.Intervals[0].Ops[0].ErrorClasses, map[string]int64{"deadlock": 5, "timeout": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("interval 1 error classes = %v, want %v", got, want)
	}
	if got := a.Intervals[0].Ops[0].ErrorClasses; got["deadlock"] != 2 {
		t.Errorf("merging changed the input's error classes: %v", got)
	}
	if last := m.Intervals[2]; last.ElapsedS != 62 || len(last.Ops) != 1 || last.Ops[0].Count != 3 {
		t.Errorf("interval only in the second result = %+v, want it as it was", last)
	}

	// The inputs are unchanged.
	if a.Ops[0].Hist.Count() != aAddCount || !reflect.DeepEqual(a.Ops[0].Errors, aAddErrors) || a.Config.Clients != 4 {
		t.Error("Merge modified its first input")
	}
}

func TestMergeInvariants(t *testing.T) {
	tests := []struct {
		a, b bool
		want bool
	}{
		{true, true, true},
		{true, false, false},
		{false, true, false},
		{false, false, false},
	}
	for _, tc := range tests {
		m, err := result.Merge([]*result.Result{sample(t, 1, 1, tc.a), sample(t, 1, 1, tc.b)})
		if err != nil {
			t.Fatal(err)
		}
		if m.Invariants.OK != tc.want {
			t.Errorf("merging invariants OK=%v and OK=%v gave OK=%v, want %v", tc.a, tc.b, m.Invariants.OK, tc.want)
		}
	}
}

// TestMergeFaults: merging parts of one run keeps every part's faults,
// in time order, under the merged check (a part whose check failed makes
// every fault's invariants VIOLATED).
func TestMergeFaults(t *testing.T) {
	a, b := sample(t, 1, 1, true), sample(t, 1, 1, false)
	a.Faults = []result.Fault{{AtS: 3, Kind: "reset", Injected: true, Recovery: &result.Recovery{Invariants: "OK"}}}
	b.Faults = []result.Fault{{AtS: 1, Kind: "kill-server", Injected: true, Recovery: &result.Recovery{Invariants: "VIOLATED"}}}
	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Faults) != 2 || m.Faults[0].Kind != "kill-server" || m.Faults[1].Kind != "reset" || m.Faults[1].Recovery.Invariants != "VIOLATED" {
		t.Errorf("merged faults %+v", m.Faults)
	}
}

func TestMergeSources(t *testing.T) {
	ab, err := result.Merge([]*result.Result{sample(t, 1, 1, true), sample(t, 1, 1, true)})
	if err != nil {
		t.Fatal(err)
	}
	abc, err := result.Merge([]*result.Result{ab, sample(t, 1, 1, true)})
	if err != nil {
		t.Fatal(err)
	}
	if abc.Sources != 3 {
		t.Errorf("Sources = %d, want 3", abc.Sources)
	}
	if n := abc.Op("add").Count; n != 120 {
		t.Errorf("add count = %d, want 120", n)
	}
	// A merged result survives Save and Load.
	path := filepath.Join(t.TempDir(), "m.json")
	if err := abc.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Sources != 3 || back.Op("add").Hist.Count() != 120 {
		t.Errorf("after Save/Load: sources %d, add count %d; want 3, 120", back.Sources, back.Op("add").Hist.Count())
	}
}

func TestMergeEdgeCases(t *testing.T) {
	if _, err := result.Merge(nil); err == nil {
		t.Error("Merge(nil) succeeded, want an error")
	}
	if _, err := result.Merge([]*result.Result{}); err == nil {
		t.Error("Merge of no results succeeded, want an error")
	}

	one := sample(t, 1, 3, true)
	m, err := result.Merge([]*result.Result{one})
	if err != nil || m != one {
		t.Errorf("Merge of one result = %p, %v; want it back unchanged (%p)", m, err, one)
	}

	other := sample(t, 1, 3, true)
	other.Workload = "kv"
	_, err = result.Merge([]*result.Result{one, other})
	if err == nil || !strings.Contains(err.Error(), "kv") || !strings.Contains(err.Error(), "train-events") {
		t.Errorf("merging different workloads: %v, want an error naming both", err)
	}

	// Only parts of one run merge: the same workload settings and dialect;
	// clients and seeds may differ.
	part := sample(t, 1, 3, true)
	part.Config.Clients, part.Config.Seed = 7, 99
	if _, err := result.Merge([]*result.Result{one, part}); err != nil {
		t.Errorf("merging parts with other clients and seeds: %v", err)
	}
	// Two runs on the same data at once: the first loaded it with its
	// seed, the second found it (data_seed, the first's seed): one run's
	// parts. (They were refused: data_seed (unset) against a number.)
	loader, finder := sample(t, 1, 3, true), sample(t, 1, 3, true)
	loader.Config.Seed, finder.Config.Seed = 7, 9
	loader.Settings = map[string]any{"variant": "manual"}
	finder.Settings = map[string]any{"variant": "manual", "data_seed": uint64(7)}
	if _, err := result.Merge([]*result.Result{loader, finder}); err != nil {
		t.Errorf("merging runs on the same data, one of which loaded it: %v", err)
	}
	for _, tc := range []struct {
		change func(r *result.Result)
		want   string
	}{
		{func(r *result.Result) { r.Settings = map[string]any{"variant": "manual", "data_seed": uint64(8)} }, "cannot merge: data_seed differs"},
		{func(r *result.Result) { r.Settings = map[string]any{"variant": "text"} }, "cannot merge: variant differs (manual in result 1, text in result 2); merge parts of one run only"},
		{func(r *result.Result) { r.Settings = map[string]any{"variant": "manual", "rows": 5} }, "cannot merge: rows differs ((unset) in result 1, 5 in result 2)"},
		{func(r *result.Result) { r.Server.Dialect = "SQLite" }, "cannot merge: database differs"},
	} {
		a, b := sample(t, 1, 3, true), sample(t, 1, 3, true)
		a.Settings = map[string]any{"variant": "manual"}
		b.Settings = map[string]any{"variant": "manual"}
		tc.change(b)
		_, err := result.Merge([]*result.Result{a, b})
		var inc *result.Incomparable
		if !errors.As(err, &inc) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("merging incomparable results: %v, want %q", err, tc.want)
		}
	}
}

func TestOpLookup(t *testing.T) {
	r := sample(t, 1, 1, true)
	if o := r.Op("process"); o == nil || o.Name != "process" {
		t.Errorf("Op(process) = %+v", o)
	}
	if o := r.Op("missing"); o != nil {
		t.Errorf("Op(missing) = %+v, want nil", o)
	}
	// Op returns a pointer into the result.
	r.Op("add").Retries = 99
	if r.Ops[0].Retries != 99 {
		t.Error("Op returned a copy, not the result's op")
	}
}

// TestMergeTelemetry: the first run's telemetry is kept, not added up, and
// server times are over the merged executions.
func TestMergeTelemetry(t *testing.T) {
	a, b := sample(t, 1, 2, true), sample(t, 1, 2, true)
	b.Telemetry = &result.Telemetry{
		Database:   map[string]int64{"xact_commit": 100},
		Statements: []result.Statement{{Op: "add", Query: "/* txnbench op=add */ INSERT", Calls: 80, TotalMS: 160}, {Query: "COMMIT", Calls: 80, TotalMS: 8}},
	}
	b.SetServerTimes()
	execs := func(r *result.Result) int64 { o := r.Op("add"); return o.Count + o.Retries + o.ErrorCount() }
	if got, want := b.Op("add").ServerMS, 160/float64(execs(b)); got != want {
		t.Errorf("one run: add server %.4f ms, want %.4f", got, want)
	}
	if b.Op("process").ServerMS != 0 {
		t.Error("process has server time without tagged statements")
	}
	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Telemetry == nil || m.Telemetry.Database["xact_commit"] != 100 || len(m.Telemetry.Notes) != 1 || !strings.Contains(m.Telemetry.Notes[0], "merged from 2") {
		t.Fatalf("merged telemetry %+v", m.Telemetry)
	}
	if got, want := m.Op("add").ServerMS, 160/float64(execs(m)); got != want || execs(m) != 2*execs(b) {
		t.Errorf("merged: add server %.4f ms, want %.4f", got, want)
	}
	if len(b.Telemetry.Notes) != 0 {
		t.Error("merging changed a source's notes")
	}
	m, err = result.Merge([]*result.Result{a, sample(t, 1, 2, true)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Telemetry != nil {
		t.Errorf("telemetry %+v from results without any", m.Telemetry)
	}
}

// TestMergeSlowOps: a merged result keeps each op's slowest runs from all
// sources, slowest first, at most 20 of each.
func TestMergeSlowOps(t *testing.T) {
	a, b := sample(t, 1, 2, true), sample(t, 1, 2, true)
	for i := 0; i < 15; i++ {
		a.SlowOps = append(a.SlowOps, result.SlowOp{Op: "add", LatencyMS: float64(100 + 2*i)})
		b.SlowOps = append(b.SlowOps, result.SlowOp{Op: "add", LatencyMS: float64(101 + 2*i)})
	}
	b.SlowOps = append(b.SlowOps, result.SlowOp{Op: "cycle", LatencyMS: 5000, BackendPID: 9})
	m, err := result.Merge([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.SlowOps) != 21 || m.SlowOps[0].LatencyMS != 129 || m.SlowOps[19].LatencyMS != 110 || m.SlowOps[20].Op != "cycle" {
		t.Errorf("merged slow ops %+v", m.SlowOps)
	}
	if len(a.SlowOps) != 15 || a.SlowOps[0].LatencyMS != 100 {
		t.Error("merging changed a source's slow ops")
	}
}

// TestLoadMovesOldNotes: a file written when notes were a setting loads
// with them as Notes and without them among the settings, and a saved
// result keeps its Notes.
func TestLoadMovesOldNotes(t *testing.T) {
	r := sample(t, 1, 1, true)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["settings"] = map[string]any{"rows": 10, "notes": []string{"no inverted index on SQLite"}}
	old, _ := json.Marshal(doc)
	path := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Notes, []string{"no inverted index on SQLite"}) {
		t.Errorf("notes %q", got.Notes)
	}
	if _, ok := got.Settings["notes"]; ok || len(got.Settings) != 1 {
		t.Errorf("settings %v: want rows only", got.Settings)
	}
	if err := got.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Notes, got.Notes) {
		t.Errorf("after a save, notes %q", again.Notes)
	}
}
