package study_test

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// The tests of study.md: report writes it (report.StudyMarkdown) from
// what study computes; its golden files are study's, where the summary
// is built.

// studyMD is study.md of s (report.StudyMarkdown, with no runs).
func studyMD(s *study.Summary) string {
	var b strings.Builder
	report.StudyMarkdown(&b, s, nil)
	return b.String()
}

// TestStudyMarkdownGolden: study.md of seed 000's matrix, seed 001's
// connect study and a repeated ladder.
func TestStudyMarkdownGolden(t *testing.T) {
	for name, s := range map[string]*study.Summary{
		"study_seed000.md": study.Seed000(),
		"study_seed001.md": study.Seed001(),
		"study_ladder.md":  study.LadderOf(map[int][]float64{50: {4000, 4100}, 100: {7000, 6900}, 150: {7150, 7300}, 200: {9100, 9400}, 250: {9300, 9450}}, 50, 100, 150, 200, 250),
	} {
		plain.Golden(t, name, studyMD(s))
	}
}

// TestCompareModes: axis (the default) replaces the "vs first" columns
// with the axis tables, first keeps them alone, none prints neither.
func TestCompareModes(t *testing.T) {
	md := func(m study.CompareMode) string {
		s := study.Seed000()
		s.Compare = m
		return studyMD(s)
	}
	axis, first, none := md(""), md(study.CompareFirst), md(study.CompareNone)
	if strings.Contains(axis, "vs first") || !strings.Contains(axis, "## variant: jsonb -> manual -> text (via=direct)") || !strings.Contains(axis, " jsonb -> manual |") {
		t.Errorf("--compare axis:\n%s", axis)
	}
	if !strings.Contains(first, "mean vs first") || strings.Contains(first, "jsonb -> manual") || !strings.Contains(first, "| -90% (0.099x) |") {
		t.Errorf("--compare first:\n%s", first)
	}
	if strings.Contains(none, "vs first") || strings.Contains(none, " -> ") || strings.Contains(none, "fixed work") {
		t.Errorf("--compare none:\n%s", none)
	}
	for _, in := range []string{"axis", "first", "none"} {
		if m, err := study.ParseCompare(in); err != nil || string(m) != in {
			t.Errorf("ParseCompare(%q) = %q, %v", in, m, err)
		}
	}
	if _, err := study.ParseCompare("neighbours"); err == nil || !strings.Contains(err.Error(), "choose axis") {
		t.Errorf("ParseCompare(neighbours) = %v", err)
	}
}

// TestLadderTableMarksTheKnee: the ladder's table shows each rung's
// gains per repetition and their 95% interval, and marks the rung whose
// interval holds the 5% threshold (~) and the knee.
func TestLadderTableMarksTheKnee(t *testing.T) {
	s := study.LadderOf(map[int][]float64{5: {4000, 4000, 4000}, 10: {4040, 4480, 4200}, 20: {7000, 7500, 7300}, 40: {7070, 7650, 7409.5}}, 5, 10, 20, 40)
	plain.Contains(t, "ladder", studyMD(s), "+1% to +12%", " ~ (-", "<- ~: knee not established", "+1% (+0% to +3%): stops", "<- throughput stops growing", "Throughput stops growing at 40 clients")
}

// TestStudyMarkdownLadder: study.md of a clients ladder on one
// repetition has each op's table against the first cell, the ladder, no
// knee established, and the invariants' line.
func TestStudyMarkdownLadder(t *testing.T) {
	s := &study.Summary{Workload: "w", Repeat: 1}
	rates := map[string]int64{"5": 100, "10": 190, "20": 300, "40": 305, "80": 250}
	for _, n := range []string{"5", "10", "20", "40", "80"} {
		c := study.Cell{Settings: []study.Setting{{Key: "clients", Value: n}, {Key: "conn", Value: "pool"}}}
		s.Cells = append(s.Cells, study.Summarise(c, []*result.Result{study.Res(rates[n], 5, 1, true)}, nil))
	}
	out := studyMD(s)
	plain.Contains(t, "report", out, "## add", "| clients=5 conn=pool", "+90% (1.90x)", "throughput by clients (conn=pool)", "| 40      | 305.0 |  +2% (1.02x) |", "<- under +5% on one repetition: knee not established", "invariants: OK in every run")
}

// TestStudyMarkdownInvariantsNotChecked: a cell a repetition of which
// verified nothing is named, and study.md does not call every run OK.
func TestStudyMarkdownInvariantsNotChecked(t *testing.T) {
	c := study.Cell{Settings: []study.Setting{{Key: "clients", Value: "4"}}}
	unchecked := study.Res(10, 1, 1, false)
	unchecked.Invariants.NotChecked = "custom scripts"
	nc := study.Summarise(c, []*result.Result{study.Res(10, 1, 1, true), unchecked}, nil)
	md := studyMD(&study.Summary{Cells: []study.CellSummary{nc}})
	if !strings.Contains(md, "invariants: not checked (custom scripts) in cell clients=4") || strings.Contains(md, "OK in every run") {
		t.Errorf("study.md:\n%s", md)
	}
}

// TestStudyMarkdownLimitedBy: each cell's row says what limited its runs
// (their stored lines, counted when they differ) and its shaped network's
// round trip asked and during the run; a cell bound by a pooler on shared
// cores is named as this machine's conclusion.
func TestStudyMarkdownLimitedBy(t *testing.T) {
	cell := func(v string) study.Cell { return study.Cell{Settings: []study.Setting{{Key: "via", Value: v}}} }
	limited := func(l result.Limit, n *result.Network) *result.Result {
		r := study.Res(10, 1, 1, true)
		r.LimitedBy, r.Network = &l, n
		return r
	}
	server := result.Limit{Part: "server", Line: "server CPU (the machine's 2 cores 97% busy)"}
	bouncer := result.Limit{Part: "pooler", Line: "PgBouncer CPU (one thread at 97% of a core)", ThisMachine: true}
	shaped := &result.Network{Shape: "rtt=1ms", RTTMs: 1, MeasuredRTTMs: 1.01, WindowRTTMs: 45.2, ProxyCPUS: 0.52} // over a 1 s window
	direct := study.Summarise(cell("direct"), []*result.Result{limited(server, shaped), limited(server, shaped)}, nil)
	pooled := study.Summarise(cell("pgbouncer"), []*result.Result{limited(bouncer, nil), limited(server, nil), limited(bouncer, nil)}, nil)
	out := studyMD(&study.Summary{Cells: []study.CellSummary{direct, pooled}, Repeat: 3})
	plain.Contains(t, "study.md", out,
		"## limited by",
		"| via=direct    |",
		"1 / 45.2 ms, proxy 52% of a core (off) | server CPU (the machine's 2 cores 97% busy)",
		"PgBouncer CPU (one thread at 97% of a core); it shared the machine's cores with the rest of the run: this machine's limit, not the part's on a host of its own (2 of 3 runs); server CPU (the machine's 2 cores 97% busy) (1 of 3 runs)",
		"**This machine's conclusion:** via=pgbouncer were bound by a part",
	)
}

// TestCapacityTableSaysNearTheBound: capacity.md marks a step whose
// goal's interval holds its bound (~), with the interval, beside its
// verdict and under the highest value that met every goal.
func TestCapacityTableSaysNearTheBound(t *testing.T) {
	g, _ := study.ParseSLO("add.p99<=50ms")
	s := &study.Search{Key: "clients", Integer: true, MinReps: 3, MaxReps: 3, Goals: []study.SLO{g}, Best: 2, Missed: 3, MissedGoal: "add.p99<=50ms (measured 72.000ms)", Stop: "converged: 2 met, 3 missed",
		Steps: []study.SearchStep{
			{Value: 1, Met: true, Agreed: true, Reps: []study.RepGoal{{Measured: []study.Measure{12}}}, Sure: []*study.GoalSure{{Low: 8.7, High: 13.3, From: "repetitions"}}},
			{Value: 2, Met: true, Agreed: true, Reps: []study.RepGoal{{Measured: []study.Measure{49}}}, Sure: []*study.GoalSure{{Low: 41, High: 53.8, From: "repetitions", Near: true}}},
			{Value: 3, Agreed: true, Reps: []study.RepGoal{{Measured: []study.Measure{72}}}, Sure: []*study.GoalSure{{Low: 68, High: 75, From: "repetitions"}}},
		}}
	var b strings.Builder
	report.CapacitySearch(&b, s)
	out := b.String()
	for _, want := range []string{"| met, near the bound (~) |", "49.000ms (~ near the bound: 41.000ms to 53.800ms)", "~ marks a goal whose 95% interval",
		"highest clients that met every goal: **2** (`add.p99<=50ms`: ~ near the bound: 41.000ms to 53.800ms)"} {
		if !strings.Contains(out, want) {
			t.Errorf("capacity.md lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "near the bound (~)") != 1 || strings.Contains(out, "first clients that missed: 3, on add.p99<=50ms (measured 72.000ms) (") {
		t.Errorf("only step 2 is near its bound:\n%s", out)
	}
}
