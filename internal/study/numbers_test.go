package study_test

import (
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// studyHolds is s's study.md, failing t where it lacks any of wants.
func studyHolds(t *testing.T, s *study.Summary, wants ...string) string {
	t.Helper()
	md := studyMD(s)
	plain.Contains(t, "study.md", md, wants...)
	return md
}

// summary is a study of workload varying key over values, its cells
// those given.
func summary(workload string, repeat int, key string, values []string, cells ...study.CellSummary) *study.Summary {
	return &study.Summary{Format: study.Format, Workload: workload, Repeat: repeat, Vary: []study.Vary{{Key: key, Values: values}}, Cells: cells}
}

// summarised is the cell key=value of the runs rs, ops in their order.
func summarised(key, value string, rs []*result.Result, ops []string) study.CellSummary {
	return study.Summarise(study.Cell{Settings: []study.Setting{{key, value}}}, rs, ops)
}

// TestStudyNumbers: study.md prints counts whole with thousands
// separators (errors 190.0 and reconnects 16.0 were printed, and
// 13570.51 beside the run table's 13,570.51), a latency of a few
// microseconds with its digits, and no spread with one repetition.
func TestStudyNumbers(t *testing.T) {
	recs := 16.0
	s := summary("w", 1, "conn", []string{"pool"},
		study.CellSummary{Label: "conn=pool", Settings: []study.Setting{{Key: "conn", Value: "pool"}}, InvariantsOK: true, TxnPerS: 13570.51,
			Ops:    []study.OpStats{{Name: "select", OpsPerS: 13570.51, Count: 135705, Mean: 0.0043, P50: 0.004, P99: 0.009, Errors: 190, Spread: 0}},
			Faults: []study.FaultRecovery{{Fault: "restart at 2.0 s", Errors: 190, Reconnects: &recs, Runs: 1}}})
	md := studyHolds(t, s,
		"| conn=pool | 13,570.5 |   0.00430 |  0.00400 |",
		"|    190 |      - |",
		"| conn=pool | restart at 2.0 s |",
		"|    190 |         16 |",
	)
	for _, bad := range []string{"190.0", "16.0", "13570", "| 0% |"} {
		if strings.Contains(md, bad) {
			t.Errorf("study.md has %q:\n%s", bad, md)
		}
	}
}

// TestStudyErrorsByClass: a cell's errors are shown by class with its
// success %, and the comparisons along a setting have an errors row
// (study.md showed an error total only: direct failing at 1,000 clients
// and PgBouncer not was one number among many).
func TestStudyErrorsByClass(t *testing.T) {
	cell := func(via string, errs map[string]int64) study.CellSummary {
		var rs []*result.Result
		for range 3 {
			r := study.Res(100, 10, 10, true)
			r.Ops[0].Errors = errs
			rs = append(rs, r)
		}
		return summarised("via", via, rs, []string{"a", "b", "c"})
	}
	s := summary("w", 3, "via", []string{"direct", "pgbouncer"},
		cell("direct", map[string]int64{"too_many_connections": 190, "connect_refused": 10}), cell("pgbouncer", nil))
	studyHolds(t, s,
		"| errors | success | errors by class ",
		"|    200 |  33.33% | too_many_connections 190, connect_refused 10 |",
		"|      0 | 100.00% | -  ",
		"| add   | errors    |    200 |         0 |",
	)
}

// TestStudyWaitTablesAndConnectShares: a study's per-op tables cover the
// ops of every cell, not the first cell's alone (pool cells' pool_wait had
// no table, a connect that the first cell lacked neither), and connect
// overhead gives both definitions of connect share.
func TestStudyWaitTablesAndConnectShares(t *testing.T) {
	op := func(name string, kind result.Kind, mean float64) study.OpStats {
		return study.OpStats{Name: name, Kind: kind, Count: 100, OpsPerS: 10, Mean: mean, P50: mean}
	}
	cell := func(conn string, ops ...study.OpStats) study.CellSummary {
		return study.CellSummary{Label: "conn=" + conn, Settings: []study.Setting{{"conn", conn}}, InvariantsOK: true, Ops: ops}
	}
	s := summary("connect-overhead", 1, "conn", []string{"pool", "per-txn"},
		cell("pool", op("select1", result.KindTxn, 0.5), op("pool_wait", result.KindWait, 0.002)),
		cell("per-txn", op("select1", result.KindTxn, 4), op("connect", result.KindWait, 3)),
	)
	studyHolds(t, s,
		"## pool_wait\n", "| conn=pool    |",
		"## connect\n", "| conn=per-txn |",
		"| connect share (by difference) | connect time share |",
		"|                         87.5% |              75.0% |",
	)
}

// TestAxisTablesCompareConnect: along a setting other than conn (--vary
// db=A,B), the cells' connect rows are compared too (they were left out).
func TestAxisTablesCompareConnect(t *testing.T) {
	cell := func(db string, connect float64) study.CellSummary {
		return study.CellSummary{Label: "db=" + db, Settings: []study.Setting{{"db", db}}, InvariantsOK: true, Ops: []study.OpStats{
			{Name: "query", Count: 100, OpsPerS: 10, Mean: connect + 0.1, P50: connect + 0.1},
			{Name: "connect", Kind: result.KindWait, Count: 100, OpsPerS: 10, Mean: connect, P50: connect}}}
	}
	s := summary("connect-overhead", 1, "db", []string{"sqlite", "temp-postgres"},
		cell("sqlite", 1), cell("temp-postgres", 3))
	if md := studyMD(s); !strings.Contains(md, "| connect | mean (ms) |   1.00 |          3.00 | +200% (3.00x) ? (1+1 repetitions: noise unknown) |") {
		t.Errorf("the db comparison lacks the connect row:\n%s", md)
	}
}

// TestStudyCommitsAddUp: the database table's commits are shown with
// the clients' transactions they cover, as the run's report adds them up
// (seed 000's cells printed 4,298 commits beside 4,200 transactions: the
// 98 completed after the window were left out), from the repetition with
// the median commits so that the parts add up.
func TestStudyCommitsAddUp(t *testing.T) {
	run := func(window, after int64) *result.Result {
		r := study.Res(window, 10, 60, true)
		r.Ops[0].AfterWindow = after
		r.Telemetry = &result.Telemetry{Database: map[string]int64{"xact_commit": window + after}}
		return r
	}
	rs := []*result.Result{run(4300, 90), run(4200, 98), run(4100, 97)}
	s := summary("w", 3, "via", []string{"direct"},
		summarised("via", "direct", rs, []string{"a", "b", "c"}))
	md := studyMD(s)
	want := "4,298 = 4,200 in the window + 98 completed after it"
	if !strings.Contains(md, "| "+want+" |") {
		t.Errorf("the database table lacks %q:\n%s", want, md)
	}
	c, _ := rs[1].ServerCommits()
	if got := "commits " + report.CommitsText(c); !strings.Contains(got, want) {
		t.Errorf("the run report's line %q differs from the study's %q", got, want)
	}
}

// TestStudyWorkflowSummaryCountsWorkflows: for a workload that counts
// its cycles (the workflow workload's workflows), the summary's count,
// rate and latencies are the workflows', with the transactions in their
// own columns (seed 003's c1 read "95 ops, 24.4/s, 5.6 ms": transactions,
// where the seed counts 16 workflows of 3,738 ms).
func TestStudyWorkflowSummaryCountsWorkflows(t *testing.T) {
	run := func() *result.Result {
		r := study.Res(95, 5.6, 3.9, true)
		h := metrics.NewHist()
		for range 16 {
			h.Record(3738 * time.Millisecond)
		}
		r.Ops[1].Summary, r.Ops[1].Hist = h.Summary(), h
		r.CycleUnit, r.Config.Clients = "workflows", 1
		return r
	}
	s := summary("workflow", 1, "clients", []string{"1"},
		summarised("clients", "1", []*result.Result{run()}, []string{"a"}))
	md := studyHolds(t, s,
		"## summary (workflows)",
		"| cell      | clients | workflows | duration (s) | workflows/s | mean (ms) |",
		"| clients=1 |       1 |        16 |         3.90 |         4.1 |  3,738.62 |",
		"| txns | txn/s | txn errors by class |",
		"|   95 |  24.4 | -                   |",
	)
	plain.Lacks(t, "the workflow study's study.md", md, "summary (all transactions)")
}

// TestStudyNothingMeasuredIsDash: a cell whose window completed nothing
// (a capacity rung whose schedule started no transaction in it) shows
// "-" for its latencies in the summary and the op's table, not 0.00.
func TestStudyNothingMeasuredIsDash(t *testing.T) {
	s := summary("w", 1, "rate", []string{"0.625", "1.25"},
		summarised("rate", "0.625", []*result.Result{study.Res(0, 10, 5, true)}, []string{"a"}),
		summarised("rate", "1.25", []*result.Result{study.Res(6, 10, 5, true)}, []string{"b"}))
	studyHolds(t, s,
		"| rate=0.625 (empty) |       0 |    0 |         5.00 |   0.0 |         - |        - |        - |        - |        - |      0 |       - |",
		"| rate=0.625 |   0.0 |         - |        - |        - |        - |        - |        - |      0 |      - |",
		"| rate=1.25          |       0 |    6 |         5.00 |   1.2 |     10.00 |",
		"**cell rate=0.625 empty: no transaction completed in the window of any run**: left out of the comparisons.",
	)
}

// TestStudyVerdicts: a comparison row says how sure its change is. Cells
// with the same median and wide repetitions (60 to 140 ms) are ~; cells
// whose repetitions agree on a doubling are worse (latency) and better
// (ops/s); cells of one repetition say the noise is unknown; the verdict
// is the same in study.json's comparisons as in study.md.
func TestStudyVerdicts(t *testing.T) {
	cell := func(v string, rs ...*result.Result) study.CellSummary {
		return summarised("x", v, rs, nil)
	}
	res := study.Res
	s := summary("w", 3, "x", []string{"a", "b", "c"},
		cell("a", res(100, 100, 10, true), res(100, 60, 10, true), res(100, 140, 10, true)),
		cell("b", res(100, 100, 10, true), res(100, 140, 10, true), res(100, 60, 10, true)),
		cell("c", res(50, 200, 10, true), res(50, 205, 10, true), res(50, 195, 10, true)),
	)
	s.Comparisons = study.Compare(s)
	rows := map[string]study.AxisRow{}
	for _, r := range s.Comparisons.Axes[0].Rows {
		rows[r.Op+" "+r.Metric] = r
	}
	mean, rate := rows["add mean_ms"], rows["add ops_per_s"]
	if v := mean.Stats[0].Verdict; v != "~" {
		t.Errorf("a -> b, equal medians, wide reps: mean %q, want ~", v)
	}
	if v := mean.Stats[1].Verdict; v != "~" { // b is too wide to tell 2x from noise
		t.Errorf("b -> c: mean %q, want ~ (b's reps span 60-140)", v)
	}
	md := studyMD(s)
	if !strings.Contains(md, "+0% (1.00x) ~ (p=1.00") {
		t.Errorf("study.md lacks the ~ of a -> b:\n%s", md)
	}
	// Tight reps: a doubling is a verdict, both ways.
	s.Cells[1] = cell("b", res(100, 100, 10, true), res(100, 102, 10, true), res(100, 98, 10, true))
	s.Comparisons = study.Compare(s)
	for _, r := range s.Comparisons.Axes[0].Rows {
		rows[r.Op+" "+r.Metric] = r
	}
	mean, rate = rows["add mean_ms"], rows["add ops_per_s"]
	if mean.Stats[1].Verdict != "worse" || rate.Stats[1].Verdict != "worse" || mean.Stats[1].LowPct <= 0 {
		t.Errorf("b -> c, 2x slower, agreeing reps: mean %+v, ops/s %+v, want worse both", mean.Stats[1], rate.Stats[1])
	}
	if md := studyMD(s); !strings.Contains(md, "+100% (2.00x) worse (") {
		t.Errorf("study.md lacks the worse of b -> c:\n%s", md)
	}
	one := &study.Summary{Format: study.Format, Workload: "w", Repeat: 1, Vary: s.Vary,
		Cells: []study.CellSummary{cell("a", res(100, 100, 10, true)), cell("b", res(100, 150, 10, true))}}
	if md := studyMD(one); !strings.Contains(md, "+50% (1.50x) ? (1+1 repetitions: noise unknown)") {
		t.Errorf("one repetition a cell does not say the noise is unknown:\n%s", md)
	}
}

// TestStalledCellLeftOut: a cell whose run stalled (its clients waited
// out the window) is named in study.md's header and its summary row, and
// left out of the comparisons and the ladder with the reason; its zeros
// compare with nothing.
func TestStalledCellLeftOut(t *testing.T) {
	stalled := study.Res(3, 4540.41, 10, true)
	stalled.Stalled = &result.Stall{Clients: 256, SinceS: 1.2}
	cell := func(v string, r *result.Result) study.CellSummary {
		return summarised("clients", v, []*result.Result{r}, []string{v})
	}
	s := summary("w", 1, "clients", []string{"64", "128", "256"},
		cell("64", study.Res(100, 10, 10, true)), cell("128", study.Res(150, 12, 10, true)), cell("256", stalled))
	s.Comparisons = study.Compare(s)
	if lo := s.Comparisons.LeftOut; len(lo) != 1 || lo[0].Cell != "clients=256" || !strings.Contains(lo[0].Why, "stalled in 1 of 1 runs") {
		t.Errorf("left out %+v, want clients=256 stalled", lo)
	}
	if vs := s.Comparisons.Axes[0].Values; len(vs) != 2 {
		t.Errorf("the axis compares %v, want 64 and 128 only", vs)
	}
	for _, l := range study.Ladders(s) {
		if len(l.Steps) != 2 {
			t.Errorf("the ladder has %d rungs, want 2 (the stalled one left out)", len(l.Steps))
		}
	}
	md := studyHolds(t, s, "**cell clients=256 stalled in 1 of 1 runs (no op completed after 1.2 s of the window, 256 clients waiting)", "left out of the comparisons", "| clients=256 (stalled) |")
	if strings.Contains(md, "128 -> 256") {
		t.Errorf("study.md compares the stalled cell:\n%s", md)
	}
}
