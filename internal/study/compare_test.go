package study

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// cell is a synthetic cell: settings as a label ("via=direct
// variant=jsonb"), what each repetition measured, and its ops' medians.
func cell(label string, reps []RepStats, ops ...OpStats) CellSummary {
	c := CellSummary{Label: label, Reps: reps, Ops: ops, InvariantsOK: true, Server: "PostgreSQL 15"}
	for _, kv := range strings.Fields(label) {
		k, v, _ := strings.Cut(kv, "=")
		c.Settings = append(c.Settings, Setting{k, v})
	}
	var txn []float64
	for _, r := range reps {
		txn = append(txn, r.TxnPerS)
	}
	c.TxnPerS = metrics.Median(txn)
	return c
}

// op is an op's medians: mean, p50, p95, p99 (ms) and ops/s.
func op(name string, kind result.Kind, mean, p50, p95, p99, perS float64) OpStats {
	return OpStats{Name: name, Kind: kind, Mean: mean, P50: p50, P95: p95, P99: p99, OpsPerS: perS}
}

// seed000 is seed 000's matrix as its authors measured it (one worker of
// 128 clients, 2,048 cycles each): via x variant, mean, p50, p95 and p99
// per op, and each run's wall time.
func seed000() *Summary {
	type row struct {
		label string
		wall  float64
		ops   [4][4]float64 // add, process, archive, cycle: mean, p50, p95, p99
	}
	rows := []row{
		{"via=direct variant=jsonb", 4489, [4][4]float64{{26336.08, 14481.14, 104525.78, 137686.78}, {197110.51, 81868.00, 848393.07, 1481179.72}, {11692.34, 2589.12, 45738.02, 104572.07}, {235245.13, 113206.62, 908883.74, 1528382.15}}},
		{"via=direct variant=manual", 839, [4][4]float64{{2911.16, 1645.64, 9401.98, 16640.97}, {41873.37, 20207.13, 148431.61, 241987.39}, {1728.39, 402.20, 8154.21, 13622.89}, {46614.11, 25231.53, 158155.35, 250885.12}}},
		{"via=direct variant=text", 684, [4][4]float64{{2239.95, 929.97, 8106.83, 12630.61}, {30754.82, 13636.28, 119674.83, 208971.75}, {3700.88, 677.17, 19723.95, 33162.44}, {36799.64, 21470.48, 128059.77, 211407.33}}},
		{"via=pgbouncer variant=jsonb", 4655, [4][4]float64{{84617.07, 81069.30, 144062.69, 157494.96}, {112159.25, 108681.20, 156819.09, 167366.98}, {91835.67, 91520.36, 122029.38, 132162.56}, {288712.61, 286967.91, 359988.52, 375841.83}}},
		{"via=pgbouncer variant=manual", 1038, [4][4]float64{{4891.30, 4741.76, 8026.68, 10923.60}, {12406.43, 12354.42, 17693.94, 20130.97}, {10718.30, 10518.72, 16769.48, 18854.50}, {28116.17, 28110.66, 33583.76, 36051.07}}},
		{"via=pgbouncer variant=text", 444, [4][4]float64{{7051.76, 6871.03, 13341.34, 16424.42}, {10432.22, 10413.02, 17436.47, 20112.72}, {8393.76, 8083.32, 15753.56, 18525.14}, {25978.44, 27711.76, 36271.11, 40399.79}}},
	}
	s := &Summary{Format: Format, Workload: "train-events", Repeat: 1,
		Args: []string{"txnbench", "study", "train-events", "--iterations", "2048", "--vary", "via=direct,pgbouncer", "--vary", "variant=jsonb,manual,text"},
		Vary: []Vary{{"via", []string{"direct", "pgbouncer"}}, {"variant", []string{"jsonb", "manual", "text"}}}}
	for _, r := range rows {
		rate := 2048 / r.wall
		var ops []OpStats
		for i, name := range []string{"add", "process", "archive", result.CycleOp} {
			kind := result.Kind("")
			if name == result.CycleOp {
				kind = result.KindCycle
			}
			m := r.ops[i]
			ops = append(ops, op(name, kind, m[0], m[1], m[2], m[3], rate))
		}
		s.Cells = append(s.Cells, cell(r.label, []RepStats{{TxnPerS: 3 * rate, MeasuredS: r.wall, Iterations: 2048}}, ops...))
	}
	return s
}

func find(t *testing.T, c *Comparisons, axis, held string) AxisTable {
	t.Helper()
	for _, a := range c.Axes {
		if a.Axis == axis && (Cell{Settings: a.Held}).Label() == held {
			return a
		}
	}
	t.Fatalf("no %s table with %s held", axis, held)
	return AxisTable{}
}

func row(t *testing.T, a AxisTable, op, metric string) AxisRow {
	t.Helper()
	for _, r := range a.Rows {
		if r.Op == op && r.Metric == metric {
			return r
		}
	}
	t.Fatalf("%s: no row %s %s", a.Axis, op, metric)
	return AxisRow{}
}

func near(got *float64, want float64) bool { return got != nil && math.Abs(*got-want) < 0.05 }

// TestAxisComparisonsHoldTheOtherSettings: every varied setting is
// compared between neighbouring values with the others held, per op and
// metric, as seed 000 laid it out.
func TestAxisComparisonsHoldTheOtherSettings(t *testing.T) {
	c := Compare(seed000())
	if len(c.Axes) != 5 { // variant for each via, via for each variant
		t.Fatalf("%d axis tables, want 5: %+v", len(c.Axes), c.Axes)
	}
	v := find(t, c, "variant", "via=direct")
	if strings.Join(v.Values, ",") != "jsonb,manual,text" {
		t.Errorf("values %v", v.Values)
	}
	// Seed 000: add jsonb -> manual ~89% faster, manual -> text ~23% faster.
	add := row(t, v, "add", "mean_ms")
	if len(add.ChangePct) != 2 || !near(add.ChangePct[0], -88.95) || !near(add.ChangePct[1], -23.06) {
		t.Errorf("add mean changes %v", add.ChangePct)
	}
	if got := Change(add.Values[0], add.Values[1]); got != "-89% (0.11x)" {
		t.Errorf("printed %q", got)
	}
	cy := row(t, v, result.CycleOp, "p99_ms")
	if want := 100 * (250885.12 - 1528382.15) / 1528382.15; !near(cy.ChangePct[0], want) {
		t.Errorf("cycle p99 jsonb -> manual %v, want %.2f", *cy.ChangePct[0], want)
	}
	// Throughput: higher is better, the sign is Change's.
	tp := row(t, v, "add", "ops_per_s")
	if *tp.ChangePct[0] <= 0 {
		t.Errorf("ops/s jsonb -> manual %v, want an increase (the manual run was faster)", *tp.ChangePct[0])
	}
	// direct -> pgbouncer with the variant held: process ~90% faster for
	// manual (41,873 -> 12,406 ms).
	via := find(t, c, "via", "variant=manual")
	if p := row(t, via, "process", "mean_ms"); !near(p.ChangePct[0], 100*(12406.43-41873.37)/41873.37) {
		t.Errorf("process direct -> pgbouncer %v", *p.ChangePct[0])
	}
	// A setting with one value, or a study of one cell, compares nothing.
	one := &Summary{Cells: []CellSummary{seed000().Cells[0]}}
	if c := Compare(one); len(c.Axes) != 0 {
		t.Errorf("one cell compared: %+v", c.Axes)
	}
}

// TestChangeAgainstZero: a change from zero has no percentage; JSON says
// null and the table "-"-less empty, as Change.
func TestChangeAgainstZero(t *testing.T) {
	s := &Summary{Cells: []CellSummary{
		cell("variant=a", nil, op("add", "", 0, 0, 0, 0, 0)),
		cell("variant=b", nil, op("add", "", 2, 2, 2, 2, 5)),
	}}
	c := Compare(s)
	r := row(t, c.Axes[0], "add", "mean_ms")
	if r.ChangePct[0] != nil {
		t.Errorf("change from 0: %v", *r.ChangePct[0])
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("comparisons do not encode: %v", err)
	}
}

// TestFixedWorkWallTimes: with --iterations each cell's wall time and
// its ratio to the previous value of each setting (seed 000: 52 minutes
// direct, under 10 pooled).
func TestFixedWorkWallTimes(t *testing.T) {
	s := seed000()
	c := Compare(s)
	if len(c.FixedWork) != 6 {
		t.Fatalf("fixed work %+v", c.FixedWork)
	}
	pooledText := c.FixedWork[5]
	if pooledText.Cell != "via=pgbouncer variant=text" || pooledText.Cycles != 2048 || pooledText.WallS != 444 {
		t.Errorf("wall time %+v", pooledText)
	}
	want := map[string]WallRatio{
		"via":     {Axis: "via", Against: "via=direct variant=text", Ratio: 444.0 / 684},
		"variant": {Axis: "variant", Against: "via=pgbouncer variant=manual", Ratio: 444.0 / 1038},
	}
	if len(pooledText.Vs) != 2 {
		t.Fatalf("ratios %+v", pooledText.Vs)
	}
	for _, v := range pooledText.Vs {
		if w := want[v.Axis]; v.Against != w.Against || math.Abs(v.Ratio-w.Ratio) > 1e-9 {
			t.Errorf("ratio %+v, want %+v", v, w)
		}
	}
	if len(c.FixedWork[0].Vs) != 0 {
		t.Errorf("the first cell has no previous value: %+v", c.FixedWork[0].Vs)
	}
	// Against the first cell with --compare first.
	s.Compare = CompareFirst
	c = Compare(s)
	if len(c.Axes) != 0 || len(c.FixedWork[5].Vs) != 1 || c.FixedWork[5].Vs[0].Against != "via=direct variant=jsonb" {
		t.Errorf("--compare first: %+v %+v", c.Axes, c.FixedWork[5].Vs)
	}
	// Cells that ran for a duration have no fixed work.
	for i := range s.Cells {
		s.Cells[i].Reps[0].Iterations = 0
	}
	if c := Compare(s); c.FixedWork != nil {
		t.Errorf("fixed work without --iterations: %+v", c.FixedWork)
	}
}

// seed001 is seed 001's PostgreSQL measurements: connect per query
// against a pool, per query kind.
func seed001() *Summary {
	s := &Summary{Format: Format, Workload: "connect-overhead", Repeat: 1,
		Args: []string{"txnbench", "study", "connect-overhead", "--vary", "conn=per-txn,pool", "--vary", "query=select1,point,complex"},
		Vary: []Vary{{"conn", []string{"per-txn", "pool"}}, {"query", []string{"select1", "point", "complex"}}}}
	for _, c := range []struct {
		label     string
		mean, p50 float64
	}{
		{"conn=per-txn query=select1", 5.47, 5.47}, {"conn=per-txn query=point", 4.65, 4.65}, {"conn=per-txn query=complex", 4.50, 4.50},
		{"conn=pool query=select1", 0.0695, 0.0695}, {"conn=pool query=point", 0.34469, 0.34469}, {"conn=pool query=complex", 0.14319, 0.14319},
	} {
		ops := []OpStats{op("query", "", c.mean, c.p50, c.mean*2, c.mean*3, 1000/c.mean)}
		if strings.Contains(c.label, "per-txn") {
			ops = append(ops, op("connect", result.KindWait, 4.045, 4.045, 6, 8, 1000/c.mean))
		}
		ops = append(ops, op(result.CycleOp, result.KindCycle, c.mean, c.p50, c.mean*2, c.mean*3, 1000/c.mean))
		s.Cells = append(s.Cells, cell(c.label, []RepStats{{TxnPerS: 1000 / c.mean, MeasuredS: 10}}, ops...))
	}
	return s
}

// TestConnectOverheadSpeedups: a study varying conn with a per-txn cell
// gets seed 001's speedup per query kind and connect share.
func TestConnectOverheadSpeedups(t *testing.T) {
	c := Compare(seed001())
	if len(c.Connect) != 3 {
		t.Fatalf("connect overhead %+v", c.Connect)
	}
	sel := c.Connect[0]
	if (Cell{Settings: sel.Held}).Label() != "query=select1" || sel.Pooled != "pool" || sel.Op != "query" {
		t.Errorf("compared %+v", sel)
	}
	// Seed 001: SELECT 1 5.47 ms -> 69.50 us, 78.7x, 98.73% faster.
	if math.Abs(sel.Speedup-78.7) > 0.05 || math.Abs(sel.SpeedupP50-78.7) > 0.05 || math.Abs(sel.ConnectPct-98.73) > 0.005 {
		t.Errorf("select1: speedup %.2f (p50 %.2f), connect share %.2f%%", sel.Speedup, sel.SpeedupP50, sel.ConnectPct)
	}
	if pt := c.Connect[1]; math.Abs(pt.Speedup-13.49) > 0.01 || math.Abs(pt.ConnectPct-92.59) > 0.01 {
		t.Errorf("point: %+v", pt)
	}
	// Session keeps connections too; without a per-txn cell nothing.
	s := seed001()
	for i := range s.Cells {
		for j := range s.Cells[i].Settings {
			if s.Cells[i].Settings[j].Value == "per-txn" {
				s.Cells[i].Settings[j].Value = "session"
			}
		}
	}
	if c := Compare(s); len(c.Connect) != 0 {
		t.Errorf("no per-txn cell, yet %+v", c.Connect)
	}
}

// ladder is a clients ladder whose rungs measured these throughputs, one
// list per rung, one value per repetition.
func ladder(rates map[int][]float64, clients ...int) *Summary {
	s := &Summary{Format: Format, Workload: "script", Vary: []Vary{{Key: "clients"}}}
	for _, n := range clients {
		var reps []RepStats
		for _, r := range rates[n] {
			reps = append(reps, RepStats{TxnPerS: r, MeasuredS: 120})
		}
		s.Repeat = len(reps)
		label := "clients=" + strconv.Itoa(n)
		s.Vary[0].Values = append(s.Vary[0].Values, strconv.Itoa(n))
		med := metrics.Median(rates[n])
		s.Cells = append(s.Cells, cell(label, reps, op("wd01", "", 2000*float64(n)/med, 10, 30, 50, 0.75*med), op(result.CycleOp, result.KindCycle, 2000*float64(n)/med, 10, 30, 50, med)))
	}
	return s
}

// TestKneeNeedsAgreeingRepetitions: a knee is marked only where the
// rung's gain, from its repetitions paired with the rung before's, is
// surely under 5% (its 95% interval below it), and named with that
// interval; one noisy repetition (seed 002: +3% at 10 clients, then +84%
// at 20) establishes none, and two that gained +2% and +4% are within
// their noise (~), which the rule before this interval called a knee.
func TestKneeNeedsAgreeingRepetitions(t *testing.T) {
	// One repetition: not established, said so.
	one := Ladders(ladder(map[int][]float64{5: {4000}, 10: {4120}, 20: {7580}}, 5, 10, 20))[0]
	if one.Knee != -1 || one.Steps[1].Paired != 1 || math.Abs(one.Steps[1].GainMin-3) > 1e-9 || one.Steps[1].Verdict != RungUnknown {
		t.Errorf("one repetition: knee %d, steps %+v", one.Knee, one.Steps)
	}
	if n := one.Note(); !strings.Contains(n, "One repetition: knee not established (10 clients gained +3%)") {
		t.Errorf("note %q", n)
	}
	// Three repetitions: at 10 clients +1%, +12% and +5% (~); at 20 they
	// all grow by three quarters (grows); at 40 +1%, +2% and +1.5%
	// (+0.3% to +2.7%): the knee.
	l := Ladders(ladder(map[int][]float64{5: {4000, 4000, 4000}, 10: {4040, 4480, 4200}, 20: {7000, 7500, 7300}, 40: {7070, 7650, 7409.5}}, 5, 10, 20, 40))[0]
	if st := l.Steps[1]; st.Paired != 3 || math.Abs(st.GainMin-1) > 1e-9 || math.Abs(st.GainMax-12) > 1e-9 || st.Verdict != RungSame {
		t.Errorf("spread at 10 clients %+v, want ~", st)
	}
	if st := l.Steps[2]; st.Verdict != RungGrows || st.GainLow <= KneeGain {
		t.Errorf("20 clients %+v, want grows", st)
	}
	if st := l.Steps[3]; l.Knee != 3 || st.Verdict != RungStops || math.Abs(st.GainLow-0.26) > 0.05 || math.Abs(st.GainHigh-2.75) > 0.05 {
		t.Errorf("knee at %d, 40 clients %+v; want the knee at 3 (40 clients, +0.3%% to +2.7%%)", l.Knee, st)
	}
	if n := l.Note(); !strings.Contains(n, "Throughput stops growing at 40 clients: +1% over 20 clients (95% interval +0% to +3%, from 3 paired repetitions), under 5%.") {
		t.Errorf("note %q", n)
	}
	if g := l.Steps[3].GainText(); g != "+1% (+0% to +3%): stops" {
		t.Errorf("the knee's gain text %q", g)
	}
	// Two repetitions that gained +2% and +4%: each under 5%, but two
	// cannot tell that from 5% (t = 12.7 with one degree of freedom).
	two := Ladders(ladder(map[int][]float64{5: {7000, 7500}, 10: {7140, 7800}}, 5, 10))[0]
	if two.Knee != -1 || two.Steps[1].Verdict != RungSame || !strings.Contains(two.Note(), "Knee not established: at 10 clients the gain's 95% interval") ||
		!strings.Contains(two.Note(), "from 2 paired repetitions, holds the 5% threshold (~") {
		t.Errorf("+2%% and +4%% on two repetitions: knee %d, step %+v, note %q", two.Knee, two.Steps[1], two.Note())
	}
	// A study.json without repetitions recorded establishes nothing.
	old := ladder(map[int][]float64{5: {4000, 4000}, 10: {4040, 4080}}, 5, 10)
	for i := range old.Cells {
		old.Cells[i].Reps = nil
	}
	if o := Ladders(old)[0]; o.Knee != -1 || !strings.Contains(o.Note(), "does not record its repetitions") {
		t.Errorf("without repetitions: knee %d, note %q", o.Knee, o.Note())
	}
}

// TestSummariseRecordsRepetitions: each repetition's throughput, window
// and iterations are kept, in run order, for the knee and the fixed work.
func TestSummariseRecordsRepetitions(t *testing.T) {
	a, b := res(100, 10, 10, true), res(300, 30, 10, true)
	a.Config.Iterations, b.Config.Iterations = 100, 300
	cs := Summarise(Cell{Settings: []Setting{{"clients", "4"}}}, []*result.Result{a, b}, nil)
	if len(cs.Reps) != 2 || cs.Reps[0] != (RepStats{TxnPerS: 10, MeasuredS: 10, Iterations: 100}) || cs.Reps[1].TxnPerS != 30 {
		t.Errorf("repetitions %+v", cs.Reps)
	}
}
