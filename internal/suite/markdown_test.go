package suite

import (
	"reflect"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

func sampleReport() *Report {
	start := time.Date(2026, 3, 17, 10, 0, 0, 0, time.UTC)
	return &Report{
		Format: Format, Name: "baseline", File: "examples/suite.toml", Tier: "smoke",
		Tool:    result.Tool{Version: "v1.2.3", Go: "go1.26.8"},
		Args:    []string{"txnbench", "suite", "run", "examples/suite.toml", "--tier", "smoke"},
		Started: start, Ended: start.Add(83 * time.Second),
		Machine: result.Machine{Hostname: "ci-1", OS: "linux", Arch: "amd64", CPUs: 2},
		Scenarios: []Scenario{
			{
				Name: "jsonb-smoke", Kind: KindRun, Workload: "train-events", Tiers: []string{"smoke", "nightly"},
				Result: "jsonb-smoke.json", Server: "PostgreSQL 15.18", Tier: "smoke",
				Settings: map[string]string{"db": "temp-postgres", "clients": "4", "duration": "4s", "seed": "42", "variant": "jsonb"},
				Summary: Summary{Ops: 318, Clients: 4, DurationS: 4, TxnPerS: 79.5, MeanMS: 110.45, P90MS: 201.3, P95MS: 259.07, P99MS: 422.65, MaxMS: 511.49, InvariantsOK: true,
					Database: map[string]int64{"xact_commit": 3313, "xact_rollback": 352, "blks_hit": 26548, "blks_read": 269, "tup_inserted": 774, "tup_updated": 339, "tup_deleted": 108},
					TopWait:  "Client:ClientRead", TopWaitShare: 0.62},
			},
			{
				Name: "ladder-smoke", Kind: KindStudy, Workload: "train-events", Tiers: []string{"smoke"},
				Study: "ladder-smoke/study.json", Server: "PostgreSQL 15.18", Tier: "smoke",
				Settings: map[string]string{"db": "temp-postgres", "clients": "1,4", "duration": "2s", "seed": "42", "variant": "jsonb", "repeat": "2"},
				Summary: Summary{Ops: 63, Clients: 4, DurationS: 4.06, TxnPerS: 15.52, MeanMS: 738.07, P90MS: 2300.1, P95MS: 2322.43, P99MS: 2369.53, MaxMS: 2369.53, Failures: 2, InvariantsOK: false,
					Phases: []Phase{
						{Name: "start", Count: 16, MeanMS: 6.12, P90MS: 8.5, P95MS: 9.29, P99MS: 11.26, MaxMS: 11.26},
						{Name: "signal_to_completion", Count: 16, MeanMS: 3073.2, P90MS: 3080, P95MS: 3086.59, P99MS: 3090.44, MaxMS: 3090.44},
					},
					Database: map[string]int64{"xact_commit": 251, "blks_hit": 1654}},
			},
			{
				Name: "tpcb-sqlite-smoke", Kind: KindRun, Workload: "script", Tiers: []string{"smoke"}, Tier: "smoke",
				Settings: map[string]string{"db": "sqlite:", "clients": "2", "duration": "4s", "seed": "42", "builtin": "tpcb-like"},
				Error:    "script: the | pipe\nbroke",
			},
			{
				Name: "soak", Kind: KindRun, Workload: "script", Tiers: []string{"smoke"},
				Result: "soak.json", Server: "SQLite 3.54.1",
				Settings: map[string]string{"db": "sqlite:", "clients": "2", "duration": "30m", "seed": "42", "builtin": "tpcb-like"},
				Summary:  Summary{Ops: 12, Clients: 2, DurationS: 1.5, TxnPerS: 8, MeanMS: 1, P90MS: 1.5, P95MS: 2, P99MS: 3, MaxMS: 4, InvariantsOK: true},
				Error:    Interrupted,
			},
		},
	}
}

// run makes a result with transactions add (n of ms each) and archive,
// plus a cycle row that must not count.
func run(n int64, ms, measured float64, clients int, errs int64, ok bool) *result.Result {
	h := func(n int64, ms float64) *metrics.Hist {
		x := metrics.NewHist()
		for i := int64(0); i < n; i++ {
			x.Record(time.Duration(ms * float64(time.Millisecond)))
		}
		return x
	}
	add, arch, cyc := h(n, ms), h(n, 2*ms), h(n, 10*ms)
	return &result.Result{
		MeasuredS: measured, Config: result.Config{Clients: clients}, Invariants: &result.Check{OK: ok},
		Ops: []result.Op{
			{Name: "add", Summary: add.Summary(), Hist: add, Errors: map[string]int64{"serialization": errs}},
			{Name: "archive", Summary: arch.Summary(), Hist: arch},
			{Name: result.CycleOp, Kind: result.KindCycle, Summary: cyc.Summary(), Hist: cyc, Errors: map[string]int64{"other": 100}},
		},
	}
}

func near(a, b float64) bool { return a > b*0.99 && a < b*1.01 }

func TestRunSummaryMergesTransactions(t *testing.T) {
	s := RunSummary(run(100, 10, 10, 4, 3, true))
	if s.Ops != 200 || s.Clients != 4 || s.DurationS != 10 || s.TxnPerS != 20 || s.Failures != 3 || !s.InvariantsOK {
		t.Errorf("summary %+v", s)
	}
	if !near(s.MeanMS, 15) || !near(s.P95MS, 20) || !near(s.MaxMS, 20) {
		t.Errorf("latencies %+v: want mean 15, p95 and max 20 (add and archive merged, cycle left out)", s)
	}
	if RunSummary(&result.Result{}).InvariantsOK {
		t.Error("a result without a check counts as OK")
	}
}

func TestStudySummaryReduction(t *testing.T) {
	cells := [][]*result.Result{
		{run(100, 10, 10, 1, 0, true), run(300, 10, 10, 1, 1, true), run(200, 10, 10, 1, 0, true)}, // median 200 per op
		{run(50, 40, 5, 8, 2, true), run(70, 30, 5, 8, 0, true)},                                   // slowest, median 60
		{},
	}
	s := StudySummary(cells)
	if s.Ops != 400+120 || s.DurationS != 15 || !near(s.TxnPerS, 520.0/15) {
		t.Errorf("ops %d over %.1f s (%.2f/s), want 520 over 15 s", s.Ops, s.DurationS, s.TxnPerS)
	}
	if s.Clients != 8 || s.Failures != 3 || !s.InvariantsOK {
		t.Errorf("summary %+v", s)
	}
	if !near(s.P95MS, 70) || !near(s.MeanMS, 52.5) {
		t.Errorf("latencies %+v: want the slow cell's medians (p95 70, mean 52.5)", s)
	}
	cells[0][1].Invariants.OK = false
	if StudySummary(cells).InvariantsOK {
		t.Error("a violated run left the study OK")
	}
	if !reflect.DeepEqual(StudySummary(nil), Summary{}) {
		t.Error("an empty study has a summary")
	}
}

// TestSummaryInvariantsNotChecked: a run whose check verified nothing
// (custom scripts) is not OK, and says why (report's
// TestSuiteMarkdownInvariantsNotChecked shows it in suite.md).
func TestSummaryInvariantsNotChecked(t *testing.T) {
	run := &result.Result{Invariants: &result.Check{NotChecked: "custom scripts"}}
	if s := RunSummary(run); s.InvariantsOK || s.InvariantsNotChecked != "custom scripts" {
		t.Errorf("RunSummary: %+v", s)
	}
}

// TestWorkflowSummaryCountsCycles: for a workload that counts its cycles
// (workflows), the scenario summary's ops, throughput, latencies and
// failures are the cycles', the transactions in their own column (seed
// 003's c1 showed 95 ops, 294/s and 5.6 ms, its transactions, where the
// seed counts 16 workflows, 4.1/s, 3,738 ms); a study scenario's too.
func TestWorkflowSummaryCountsCycles(t *testing.T) {
	wf := func() *result.Result {
		r := run(100, 10, 10, 4, 0, true) // 200 transactions, 100 cycles of 100 ms
		r.CycleUnit = "workflows"
		return r
	}
	s := RunSummary(wf())
	if s.Unit != "workflows" || s.Ops != 100 || s.Txns != 200 || !near(s.OpsPerS, 10) || !near(s.TxnPerS, 20) || !near(s.MeanMS, 100) || s.Failures != 100 {
		t.Errorf("run: %+v", s)
	}
	st := StudySummary([][]*result.Result{{wf()}, {wf()}})
	if st.Unit != "workflows" || st.Ops != 200 || st.Txns != 400 || !near(st.OpsPerS, 10) || !near(st.TxnPerS, 20) || !near(st.MeanMS, 100) {
		t.Errorf("study: %+v", st)
	}
	plain := RunSummary(run(100, 10, 10, 4, 0, true))
	if plain.Unit != "" || plain.Ops != 200 || plain.Txns != 200 || !near(plain.OpsPerS, 20) {
		t.Errorf("train-events: %+v", plain)
	}
}
