package diff

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/suite"
)

// sample is a real result: train-events on SQLite, 4 clients, 8 s.
const sample = "testdata/train-events-sqlite.json"

// base loads a fresh copy of the sample result with ten times its counts
// (as an 80 s run would have), so that p99 rests on enough samples to be
// compared.
func base(t testing.TB) *result.Result {
	t.Helper()
	r, err := result.Load(sample)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Ops {
		r.Ops[i].Count *= 10
	}
	return r
}

func TestFewSamplesWidenLatencyThresholds(t *testing.T) {
	// 40 cycles (a 4 s smoke run): the mean's 25% becomes 25*sqrt(300/40)
	// = 68.5%; throughput keeps 15%.
	few := func(r *result.Result) {
		for i := range r.Ops {
			r.Ops[i].Count = 40
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{1.5, Ok}, {2, Worse}} {
		rep := compare(t, changed(t, few), changed(t, both(few, latency("mean", c.x))), Options{})
		for _, d := range rep.Scenarios[0].Decisions {
			if d.Metric == "add mean ms" && (d.Verdict != c.want || d.ThresholdPct != 68.5) {
				t.Errorf("mean x%g over 40 samples: %s at %g%%, want %s at 68.5%%", c.x, d.Verdict, d.ThresholdPct, c.want)
			}
			if d.Metric == "txn/s" && d.ThresholdPct != 15 {
				t.Errorf("txn/s threshold %g%%, want 15%%", d.ThresholdPct)
			}
		}
	}
	rep := compare(t, changed(t, few), changed(t, both(few, latency("mean", 1.5))), Options{Thresholds: Uniform(25), Fixed: true})
	if verdicts(rep)["train-events/add mean ms"] != Worse {
		t.Errorf("a given --threshold is not widened: %v", verdicts(rep)["train-events/add mean ms"])
	}
}

func TestTailsNeedSamples(t *testing.T) {
	// The sample as measured: 336 cycles, too few for p99 (500), enough
	// for p95 (100).
	b, err := result.Load(sample)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := result.Load(sample)
	latency("all", 3)(n)
	rep := compare(t, b, n, Options{})
	v := verdicts(rep)
	if _, ok := v["train-events/add p99 ms"]; ok || v["train-events/add p95 ms"] != Worse {
		t.Errorf("336 samples: p99 %q (want not compared), p95 %q", v["train-events/add p99 ms"], v["train-events/add p95 ms"])
	}
	if !strings.Contains(strings.Join(rep.Scenarios[0].Notes, "\n"), "too few samples to compare: add p99 ms") {
		t.Errorf("notes %q do not say p99 had too few samples", rep.Scenarios[0].Notes)
	}
}

// changed is a copy of the sample with f applied.
func changed(t testing.TB, f func(*result.Result)) *result.Result {
	r := base(t)
	f(r)
	return r
}

// throughput scales every op's count (the same measured window).
func throughput(x float64) func(*result.Result) {
	return func(r *result.Result) {
		for i := range r.Ops {
			r.Ops[i].Count = int64(float64(r.Ops[i].Count) * x)
		}
	}
}

// latency scales one latency field of every op: "mean", "p50", "p95",
// "p99", or "all".
func latency(field string, x float64) func(*result.Result) {
	return func(r *result.Result) {
		for i := range r.Ops {
			o := &r.Ops[i]
			for _, p := range []struct {
				name string
				v    *float64
			}{{"mean", &o.Mean}, {"p50", &o.P50}, {"p95", &o.P95}, {"p99", &o.P99}} {
				if field == p.name || field == "all" {
					*p.v *= x
				}
			}
		}
	}
}

func both(fs ...func(*result.Result)) func(*result.Result) {
	return func(r *result.Result) {
		for _, f := range fs {
			f(r)
		}
	}
}

func resultInput(r *result.Result) *Input {
	return &Input{Path: "x.json", Kind: KindResult, Units: []Unit{{Name: r.Workload, Results: []*result.Result{r}}}}
}

func compare(t *testing.T, b, n *result.Result, opt Options) *Report {
	t.Helper()
	if opt.Thresholds == (Thresholds{}) {
		opt.Thresholds = DefaultThresholds
	}
	rep, err := Compare(resultInput(b), resultInput(n), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// verdicts maps each metric to its verdict.
func verdicts(rep *Report) map[string]string {
	m := map[string]string{}
	for _, s := range rep.Scenarios {
		for _, d := range s.Decisions {
			m[s.Name+"/"+d.Metric] = d.Verdict
		}
	}
	return m
}

func TestDecisions(t *testing.T) {
	cases := []struct {
		name  string
		new   func(*result.Result)
		worse []string // metrics that must be worse (scenario train-events)
		ok    []string // metrics that must be ok
		bett  []string // metrics that must be better
		regs  int      // -1: only check the lists
	}{
		{name: "identical", new: func(*result.Result) {}, ok: []string{"txn/s", "add p99 ms", "invariants"}, regs: 0},
		{name: "30% throughput drop", new: throughput(0.7), worse: []string{"txn/s", "add ops/s", "process ops/s", "archive ops/s"}, ok: []string{"add mean ms"}, regs: 4},
		{name: "doubled p99", new: latency("p99", 2), worse: []string{"add p99 ms", "process p99 ms", "archive p99 ms", "cycle p99 ms"}, ok: []string{"add p95 ms", "txn/s"}, regs: 4},
		{name: "within spread", new: both(throughput(0.93), latency("mean", 1.12), latency("p50", 1.1), latency("p95", 1.2), latency("p99", 1.35)), regs: 0},
		{name: "better", new: both(throughput(1.4), latency("all", 0.3)), bett: []string{"txn/s", "add ops/s", "add mean ms", "add p99 ms"}, regs: 0},
		{name: "invariants violated", new: func(r *result.Result) { r.Invariants.OK = false }, worse: []string{"invariants"}, regs: 1},
		{name: "many errors", new: func(r *result.Result) { r.Op("add").Errors = map[string]int64{"deadlock": 30} }, worse: []string{"add errors"}, regs: 1},
		{name: "one error in 30000", new: func(r *result.Result) {
			for i := range r.Ops {
				r.Ops[i].Count *= 100 // 33,600 adds
			}
			r.Op("add").Errors = map[string]int64{"deadlock": 1}
		}, ok: []string{"add errors"}, bett: []string{"txn/s"}, regs: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := compare(t, base(t), changed(t, c.new), Options{})
			v := verdicts(rep)
			check := func(metrics []string, want string) {
				for _, m := range metrics {
					if got, ok := v["train-events/"+m]; !ok {
						t.Errorf("%s: not compared", m)
					} else if got != want {
						t.Errorf("%s: %s, want %s", m, got, want)
					}
				}
			}
			check(c.worse, Worse)
			check(c.ok, Ok)
			check(c.bett, Better)
			if c.regs >= 0 && rep.Regressions != c.regs {
				t.Errorf("%d regressions, want %d: %v", rep.Regressions, c.regs, v)
			}
		})
	}
}

func TestNewErrorClassIsNamed(t *testing.T) {
	n := changed(t, func(r *result.Result) { r.Op("process").Errors = map[string]int64{"serialization": 2} })
	rep := compare(t, base(t), n, Options{})
	if !strings.Contains(strings.Join(rep.Scenarios[0].Notes, "\n"), "new error class in NEW: process serialization (2)") {
		t.Errorf("notes %q do not name the new error class", rep.Scenarios[0].Notes)
	}
}

func TestInterruptedAndAbortedAreSaid(t *testing.T) {
	n := changed(t, func(r *result.Result) { r.Interrupted, r.AbortedClients = true, 2 })
	notes := strings.Join(compare(t, base(t), n, Options{}).Scenarios[0].Notes, "\n")
	for _, want := range []string{"a run of NEW was interrupted", "2 client(s) aborted in NEW"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

func TestInvariantsNotCheckedAreSaid(t *testing.T) {
	n := changed(t, func(r *result.Result) { r.Invariants = &result.Check{NotChecked: "custom scripts"} })
	sc := compare(t, base(t), n, Options{}).Scenarios[0]
	if !strings.Contains(strings.Join(sc.Notes, "\n"), "invariants not checked in NEW (custom scripts)") {
		t.Errorf("notes %q do not say NEW verified nothing", sc.Notes)
	}
	for _, d := range sc.Decisions {
		if d.Family == FamInvariants {
			t.Errorf("a run that verified nothing was compared as invariants: %+v", d)
		}
	}
}

func TestLatencyFloor(t *testing.T) {
	// A sub-millisecond op doubling by 0.02 ms is not a regression; by
	// 0.2 ms it is.
	set := func(ms float64) func(*result.Result) {
		return func(r *result.Result) {
			o := r.Op("add")
			o.Mean, o.P50 = ms, ms
		}
	}
	for _, c := range []struct {
		base, new float64
		want      string
		below     bool
	}{{0.02, 0.04, Ok, true}, {0.2, 0.4, Worse, false}, {0.04, 0.02, Ok, true}} {
		rep := compare(t, changed(t, set(c.base)), changed(t, set(c.new)), Options{})
		for _, d := range rep.Scenarios[0].Decisions {
			if d.Metric == "add mean ms" && (d.Verdict != c.want || d.BelowFloor != c.below) {
				t.Errorf("%g -> %g ms: %s (below floor %v), want %s (%v)", c.base, c.new, d.Verdict, d.BelowFloor, c.want, c.below)
			}
		}
	}
}

func TestThresholdOverride(t *testing.T) {
	n := changed(t, throughput(0.95))
	if rep := compare(t, base(t), n, Options{}); rep.Regressions != 0 {
		t.Errorf("5%% drop with default thresholds: %d regressions", rep.Regressions)
	}
	if rep := compare(t, base(t), n, Options{Thresholds: Uniform(3), Fixed: true}); verdicts(rep)["train-events/txn/s"] != Worse {
		t.Errorf("5%% drop with --threshold 3: %v", verdicts(rep))
	}
}

func TestTelemetry(t *testing.T) {
	tele := func(rollbacks int64, serverMS float64) func(*result.Result) {
		return func(r *result.Result) {
			r.Telemetry = &result.Telemetry{Database: map[string]int64{"xact_rollback": rollbacks, "tup_inserted": 50000, "wal_bytes": 40 << 20}}
			r.Op("add").ServerMS = serverMS
		}
	}
	// nil on one side: compared without it, and said.
	rep := compare(t, base(t), changed(t, tele(10, 5)), Options{})
	if rep.Regressions != 0 || !strings.Contains(strings.Join(rep.Scenarios[0].Notes, "\n"), "only in NEW (not compared): add server ms") {
		t.Errorf("telemetry on one side: %d regressions, notes %q", rep.Regressions, rep.Scenarios[0].Notes)
	}
	rep = compare(t, changed(t, tele(10, 5)), changed(t, tele(500, 12)), Options{})
	v := verdicts(rep)
	for m, want := range map[string]string{"db rollbacks/txn": Worse, "db tup_inserted/txn": Ok, "db wal_bytes/txn": Ok, "add server ms": Worse} {
		if v["train-events/"+m] != want {
			t.Errorf("%s: %q, want %s", m, v["train-events/"+m], want)
		}
	}
	// Server time has its own, wider family: +40% is within it.
	if v := verdicts(compare(t, changed(t, tele(10, 5)), changed(t, tele(10, 7)), Options{})); v["train-events/add server ms"] != Ok {
		t.Errorf("server time +40%%: %q, want ok", v["train-events/add server ms"])
	}
	// and, carried by rare slow executions, it needs as many ops as p99.
	few := func(r *result.Result) { tele(10, 5)(r); r.Op("add").Count = MinSamplesP99 - 1 }
	fewer := func(r *result.Result) { tele(10, 50)(r); r.Op("add").Count = MinSamplesP99 - 1 }
	if v := verdicts(compare(t, changed(t, few), changed(t, fewer), Options{})); v["train-events/add server ms"] != "" {
		t.Errorf("server time of %d ops: %q, want not compared", MinSamplesP99-1, v["train-events/add server ms"])
	}
}

func TestFixedSettings(t *testing.T) {
	cases := []struct {
		name   string
		change func(*result.Result)
		want   string // "" when no refusal
	}{
		{"seed", func(r *result.Result) { r.Config.Seed++ }, ""},
		{"temp-postgres port", func(r *result.Result) { r.Config.DB = "temp-postgres (postgres://u@127.0.0.1:5999/x)" }, "database sqlite vs temp-postgres"},
		{"variant", func(r *result.Result) { r.Settings["variant"] = "text" }, "variant jsonb vs text"},
		{"clients", func(r *result.Result) { r.Config.Clients = 16 }, "clients 4 vs 16"},
		{"version", func(r *result.Result) { r.Tool.Version = "v1.2.3" }, "txnbench dev vs v1.2.3"},
		{"duration", func(r *result.Result) { r.Config.Duration = "30s" }, "duration 8s vs 30s"},
		{"conn", func(r *result.Result) { r.Config.Conn = "pool" }, "conn session vs pool"},
		{"server major", func(r *result.Result) { r.Server.Version = "4.1.0" }, "server SQLite 3.54 vs SQLite 4.1"},
		{"notes only", func(r *result.Result) { r.Notes = []string{"x"} }, ""},
		{"data seed", func(r *result.Result) { r.Settings["data_seed"] = 7 }, ""},
		{"delay", func(r *result.Result) { r.Settings["delay"] = "1s" }, "delay"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := changed(t, c.change)
			rep, err := Compare(resultInput(base(t)), resultInput(n), Options{Thresholds: DefaultThresholds})
			var de *DifferentError
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(rep.Different) != 0 || rep.Compared == 0 {
					t.Errorf("differences %v, %d scenarios compared: want none listed and the scenario compared", rep.Different, rep.Compared)
				}
				return
			}
			if !errors.As(err, &de) {
				t.Fatalf("not refused (err %v)", err)
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, "--allow-different") || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line naming %q and --allow-different", msg, c.want)
			}
			rep, err = Compare(resultInput(base(t)), resultInput(n), Options{Thresholds: DefaultThresholds, AllowDifferent: true})
			if err != nil || len(rep.Different) == 0 || len(rep.Scenarios[0].Decisions) == 0 {
				t.Errorf("--allow-different: err %v, differences %v", err, rep)
			}
		})
	}
	// Two temp-postgres runs on different ports are the same setup.
	a := changed(t, func(r *result.Result) { r.Config.DB = "temp-postgres (postgres://u@127.0.0.1:5999/x)" })
	b := changed(t, func(r *result.Result) { r.Config.DB = "temp-postgres (postgres://u@127.0.0.1:6123/x)" })
	if _, err := Compare(resultInput(a), resultInput(b), Options{Thresholds: DefaultThresholds}); err != nil {
		t.Errorf("temp-postgres on two ports refused: %v", err)
	}
}

func TestMajorVersion(t *testing.T) {
	for _, c := range []struct{ dialect, v, want string }{
		{"PostgreSQL", "15.4", "15"}, {"PostgreSQL", "16.1 (Debian 16.1-1)", "16"}, {"PostgreSQL", "9.6.24", "9.6"},
		{"SQLite", "3.54.1", "3.54"}, {"CockroachDB", "v23.1.2", "23.1"}, {"X", "7", "7"},
	} {
		if got := majorVersion(c.dialect, c.v); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.dialect, c.v, got, c.want)
		}
	}
}

// save writes r into dir/name and returns the path.
func save(t *testing.T, dir, name string, r *result.Result) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.Save(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeStudy writes dir/study.json with one cell per label, each with the
// given repetitions (result files beside study.json, named as study does).
func writeStudy(t *testing.T, dir string, cells map[string][]*result.Result, order []string) {
	t.Helper()
	sum := study.Summary{Format: study.Format, Workload: "train-events", Repeat: 2}
	for ci, label := range order {
		var files []string
		for ri, r := range cells[label] {
			name := filepath.Join(filepath.Base(dir), "cell"+string(rune('1'+ci))+"-rep"+string(rune('1'+ri))+".json")
			save(t, dir, filepath.Base(name), r)
			files = append(files, name) // relative to where the study ran, as txnbench study writes it
		}
		k, v, _ := strings.Cut(label, "=")
		sum.Cells = append(sum.Cells, study.Summarise(study.Cell{Settings: []study.Setting{{Key: k, Value: v}}}, cells[label], files))
	}
	writeJSON(t, filepath.Join(dir, "study.json"), sum)
}

func TestStudies(t *testing.T) {
	dir := t.TempDir()
	bdir, ndir := filepath.Join(dir, "base"), filepath.Join(dir, "new")
	os.MkdirAll(bdir, 0o755)
	os.MkdirAll(ndir, 0o755)
	// Cell a: steady; its p99 doubles in NEW. Cell b: its repetitions
	// spread the mean by 60%, so a 40% rise of the mean is within it.
	writeStudy(t, bdir, map[string][]*result.Result{
		"variant=a": {base(t), base(t)},
		"variant=b": {changed(t, latency("mean", 0.7)), changed(t, latency("mean", 1.3))},
		"variant=c": {base(t), base(t)},
		"variant=e": {base(t), changed(t, latency("p99", 2.5))},
	}, []string{"variant=a", "variant=b", "variant=c", "variant=e"})
	writeStudy(t, ndir, map[string][]*result.Result{
		"variant=b": {changed(t, latency("mean", 1.4)), changed(t, latency("mean", 1.4))},
		"variant=a": {changed(t, latency("p99", 2)), changed(t, latency("p99", 2))},
		"variant=d": {base(t), base(t)},
		"variant=e": {changed(t, latency("p99", 3)), changed(t, latency("p99", 3))},
	}, []string{"variant=b", "variant=a", "variant=d", "variant=e"})
	b, err := Load(bdir)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Load(filepath.Join(ndir, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Kind != KindStudy || n.Kind != KindStudy {
		t.Fatalf("kinds %s, %s", b.Kind, n.Kind)
	}
	rep, err := Compare(b, n, Options{Thresholds: DefaultThresholds})
	if err != nil {
		t.Fatal(err)
	}
	v := verdicts(rep)
	if v["variant=a/add p99 ms"] != Worse || v["variant=a/add mean ms"] != Ok {
		t.Errorf("cell a: p99 %q mean %q", v["variant=a/add p99 ms"], v["variant=a/add mean ms"])
	}
	if v["variant=b/add mean ms"] != Same {
		t.Errorf("cell b: a 40%% rise within its 60%% spread is %q, want ~", v["variant=b/add mean ms"])
	}
	// Cell e: base p99 repetitions 1x and 2.5x (median 1.75x, spread 86%),
	// new 3x: +71%, above the p99 default but not significant with so
	// wide a base.
	if v["variant=e/add p99 ms"] != Same {
		t.Errorf("cell e: a 71%% rise of p99 within its 86%% spread is %q", v["variant=e/add p99 ms"])
	}
	only := map[string]string{}
	for _, s := range rep.Scenarios {
		only[s.Name] = s.Only
	}
	if only["variant=c"] != "base" || only["variant=d"] != "new" || rep.Compared != 3 || rep.Regressed != 1 {
		t.Errorf("only %v, compared %d, regressed %d", only, rep.Compared, rep.Regressed)
	}
	if rep.Regressions != 4 {
		t.Errorf("%d regressions, want 4", rep.Regressions)
	}
	// A given --threshold sets the size of a change that matters, not
	// whether it is real: a small one does not make noise a regression.
	rep, _ = Compare(b, n, Options{Thresholds: Uniform(5), Fixed: true})
	if v := verdicts(rep); v["variant=b/add mean ms"] != Same || v["variant=e/add p99 ms"] != Same || v["variant=a/add p99 ms"] != Worse {
		t.Errorf("with --threshold 5: cell b mean %q, cell e p99 %q (want ~), cell a p99 %q (want worse)", v["variant=b/add mean ms"], v["variant=e/add p99 ms"], v["variant=a/add p99 ms"])
	}
}

func TestSuites(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, smoke, steady *result.Result, studyCells map[string][]*result.Result, broken string) string {
		d := filepath.Join(dir, name)
		rep := suite.Report{Format: suite.Format, Name: "s", Tier: "smoke", Scenarios: []suite.Scenario{
			{Name: "smoke", Kind: suite.KindRun, Workload: "train-events", Result: "smoke.json"},
			{Name: "steady", Kind: suite.KindRun, Workload: "train-events", Result: "steady.json"},
			{Name: "ladder", Kind: suite.KindStudy, Workload: "train-events", Study: "ladder/study.json"},
		}}
		save(t, d, "smoke.json", smoke)
		if steady != nil {
			save(t, d, "steady.json", steady)
		} else {
			rep.Scenarios[1].Result = ""
			rep.Scenarios[1].Error = broken
		}
		os.MkdirAll(filepath.Join(d, "ladder"), 0o755)
		writeStudy(t, filepath.Join(d, "ladder"), studyCells, []string{"clients=4"})
		writeJSON(t, filepath.Join(d, "suite.json"), rep)
		return d
	}
	bdir := write("base", base(t), base(t), map[string][]*result.Result{"clients=4": {base(t)}}, "")
	ndir := write("new", changed(t, throughput(0.6)), nil, map[string][]*result.Result{"clients=4": {base(t)}}, "connection refused")
	b, err := Load(bdir)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Load(filepath.Join(ndir, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(b, n, Options{Thresholds: DefaultThresholds})
	if err != nil {
		t.Fatal(err)
	}
	v := verdicts(rep)
	if v["smoke/txn/s"] != Worse || v["steady/finished"] != Worse || v["ladder: clients=4/txn/s"] != Ok {
		t.Errorf("verdicts %v", v)
	}
	if rep.Regressed != 2 || rep.Compared != 3 {
		t.Errorf("regressed %d of %d, want 2 of 3", rep.Regressed, rep.Compared)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{nope"), 0o644)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"format":"something/1"}`), 0o644)
	brokenStudy := filepath.Join(dir, "bs")
	os.MkdirAll(brokenStudy, 0o755)
	writeJSON(t, filepath.Join(brokenStudy, "study.json"), study.Summary{Format: study.Format, Cells: []study.CellSummary{{Label: "x=1", Results: []string{"gone.json"}}}})
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "no such file"},
		{empty, "holds neither suite.json nor study.json"},
		{garbage, "is not JSON written by txnbench"},
		{other, `format "something/1"`},
		{brokenStudy, "cell x=1"},
	} {
		if _, err := Load(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	s, err := Load(sample)
	if err != nil {
		t.Fatal(err)
	}
	st := &Input{Path: "study", Kind: KindStudy}
	if _, err := Compare(s, st, Options{}); err == nil || !strings.Contains(err.Error(), "is a result and NEW study a study") {
		t.Errorf("kinds differ: %v", err)
	}
}

// goldenReport is the report report's renderers write in
// testdata/diff.golden and diff.md.golden (see render_test.go).
func goldenReport(t *testing.T) *Report {
	n := changed(t, both(throughput(0.7), latency("p99", 2), func(r *result.Result) {
		r.Op("process").Errors = map[string]int64{"serialization": 3}
		r.Config.Seed = 7
	}))
	b := base(t)
	rep, err := Compare(&Input{Path: "base.json", Kind: KindResult, Units: []Unit{{Name: b.Workload, Results: []*result.Result{b}}}},
		&Input{Path: "new.json", Kind: KindResult, Units: []Unit{{Name: n.Workload, Results: []*result.Result{n}}}}, Options{Thresholds: DefaultThresholds})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// FuzzLoad: no input file makes Load panic.
func FuzzLoad(f *testing.F) {
	b, _ := os.ReadFile(sample)
	f.Add(b)
	f.Add([]byte(`{"format":"txnbench-study/1","cells":[{"label":"a","results":["x.json"]}]}`))
	f.Add([]byte(`{"format":"txnbench-suite/1","scenarios":[{"name":"a","study":"."}]}`))
	f.Add([]byte(`{"format":"txnbench-result/1","ops":[{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Load(p)
		if err == nil {
			Compare(in, in, Options{Thresholds: DefaultThresholds})
		}
	})
}

func TestResolvePrefersBesideDocument(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"base", "out"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		os.WriteFile(filepath.Join(dir, d, "cell01-rep1.json"), []byte(d), 0o644)
	}
	// study --out out, renamed to base, then another study --out out.
	for _, p := range []string{filepath.Join(dir, "out", "cell01-rep1.json"), "out/cell01-rep1.json"} {
		if got, want := resolve(filepath.Join(dir, "base"), p), filepath.Join(dir, "base", "cell01-rep1.json"); got != want {
			t.Errorf("resolve(base, %s) = %s, want %s", p, got, want)
		}
	}
	if got, want := resolve(filepath.Join(dir, "base"), "gone/x.json"), filepath.Join(dir, "base", "gone/x.json"); got != want {
		t.Errorf("missing file: %s, want %s", got, want)
	}
}
