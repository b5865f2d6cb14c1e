package study

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

func TestParseVary(t *testing.T) {
	good := map[string]Vary{
		"clients=1,2,4":                {Key: "clients", Values: []string{"1", "2", "4"}},
		"--variant=jsonb,text":         {Key: "variant", Values: []string{"jsonb", "text"}},
		"db= sqlite: , temp-postgres ": {Key: "db", Values: []string{"sqlite:", "temp-postgres"}},
	}
	for in, want := range good {
		got, err := ParseVary(in)
		if err != nil || got.Key != want.Key || strings.Join(got.Values, "|") != strings.Join(want.Values, "|") {
			t.Errorf("ParseVary(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"clients":      "want name=value1,value2",
		"=1,2":         "want name=value1,value2",
		"clients=":     "empty value",
		"clients=1,,2": "empty value",
	} {
		if _, err := ParseVary(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVary(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}

func TestExpandAndSchedule(t *testing.T) {
	cells, err := Expand([]Vary{{"via", []string{"direct", "pgbouncer"}}, {"variant", []string{"jsonb", "manual", "text"}}})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range cells {
		labels = append(labels, c.Label())
	}
	want := "via=direct variant=jsonb|via=direct variant=manual|via=direct variant=text|via=pgbouncer variant=jsonb|via=pgbouncer variant=manual|via=pgbouncer variant=text"
	if strings.Join(labels, "|") != want {
		t.Errorf("cells %v", labels)
	}
	if got := strings.Join(cells[4].Args(), " "); got != "--via=pgbouncer --variant=manual" {
		t.Errorf("args %q", got)
	}
	if v, ok := cells[4].Value("variant"); !ok || v != "manual" {
		t.Errorf("Value = %q, %v", v, ok)
	}
	if _, err := Expand(nil); err == nil {
		t.Error("expanding nothing succeeded")
	}
	if _, err := Expand([]Vary{{"clients", []string{"1"}}, {"clients", []string{"2"}}}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("duplicate key: %v", err)
	}
	steps := Schedule(2, 3)
	var order []int
	for _, s := range steps {
		order = append(order, s.Cell*10+s.Rep)
	}
	if got := fmt.Sprint(order); got != "[0 10 1 11 2 12]" {
		t.Errorf("schedule %s, want interleaved A B A B", got)
	}
}

// res makes a result whose op "add" has count ops over measured seconds,
// all of latency ms, and a cycle.
func res(count int64, ms float64, measured float64, ok bool) *result.Result {
	h := metrics.NewHist()
	for i := int64(0); i < count; i++ {
		h.Record(time.Duration(ms * float64(time.Millisecond)))
	}
	c := metrics.NewHist()
	c.Record(time.Duration(3 * ms * float64(time.Millisecond)))
	r := &result.Result{MeasuredS: measured, Invariants: &result.Check{OK: ok}, Server: result.Server{Dialect: "PostgreSQL", Version: "15"}}
	r.Ops = []result.Op{
		{Name: "add", Summary: h.Summary(), Hist: h},
		{Name: result.CycleOp, Kind: result.KindCycle, Summary: c.Summary(), Hist: c},
	}
	return r
}

func TestSummariseMediansAndSpread(t *testing.T) {
	c := Cell{Settings: []Setting{{"clients", "4"}}}
	s := Summarise(c, []*result.Result{res(100, 10, 10, true), res(300, 30, 10, true), res(200, 20, 10, true)}, []string{"a", "b", "c"})
	add := s.Op("add")
	if add.OpsPerS != 20 || add.Mean < 19.9 || add.Mean > 20.1 {
		t.Errorf("medians: %+v", add)
	}
	if add.Spread < 99 || add.Spread > 101 { // (30-10)/20
		t.Errorf("spread %.1f%%, want 100%%", add.Spread)
	}
	if s.TxnPerS != 20 || !s.InvariantsOK || s.Server != "PostgreSQL 15" || len(s.Results) != 3 {
		t.Errorf("summary %+v", s)
	}
	bad := Summarise(c, []*result.Result{res(10, 1, 1, true), res(10, 1, 1, false)}, nil)
	if bad.InvariantsOK {
		t.Error("a violated repetition left the cell OK")
	}
	unchecked := res(10, 1, 1, false)
	unchecked.Invariants.NotChecked = "custom scripts"
	nc := Summarise(c, []*result.Result{res(10, 1, 1, true), unchecked}, nil)
	if nc.InvariantsOK || nc.InvariantsNotChecked != "custom scripts" || nc.Invariants().Violated() {
		t.Errorf("a repetition that verified nothing: %+v", nc)
	}
	if both := Summarise(c, []*result.Result{unchecked, res(10, 1, 1, false)}, nil); !both.Invariants().Violated() {
		t.Error("a violation beside a run that verified nothing was not kept")
	}
	if got := Change(100, 11); got != "-89% (0.11x)" {
		t.Errorf("Change = %q", got)
	}
	if Change(0, 5) != "" {
		t.Error("change against zero")
	}
}

func TestLadderFindsWhereThroughputStopsGrowing(t *testing.T) {
	s := &Summary{Workload: "w", Repeat: 1}
	rates := map[string]int64{"5": 100, "10": 190, "20": 300, "40": 305, "80": 250}
	for _, n := range []string{"5", "10", "20", "40", "80"} {
		c := Cell{Settings: []Setting{{"clients", n}, {"conn", "pool"}}}
		s.Cells = append(s.Cells, Summarise(c, []*result.Result{res(rates[n], 5, 1, true)}, nil))
	}
	ls := Ladders(s)
	if len(ls) != 1 || ls[0].Others != "conn=pool" || len(ls[0].Steps) != 5 {
		t.Fatalf("ladders %+v", ls)
	}
	if ls[0].Knee != -1 || ls[0].Steps[3].Clients != 40 {
		t.Errorf("knee at %d, want none (40 clients: +2%%, but on one repetition)", ls[0].Knee)
	}
	// Without clients varied there is no ladder.
	s2 := &Summary{Cells: []CellSummary{Summarise(Cell{Settings: []Setting{{"variant", "text"}}}, []*result.Result{res(1, 1, 1, true)}, nil)}}
	if Ladders(s2) != nil {
		t.Error("a ladder without clients varied")
	}
}

// TestStudyJSONKinds: study.json writes the kinds as it always has, a
// transaction's absent, and reads an absent kind back as a transaction.
func TestStudyJSONKinds(t *testing.T) {
	r := res(10, 1, 1, true)
	r.Ops[0].Kind = result.KindTxn
	b, err := json.Marshal(Summarise(Cell{}, []*result.Result{r}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), `"kind"`) != 1 || !strings.Contains(string(b), `"kind":"cycle"`) {
		t.Errorf("study.json kinds: %s", b)
	}
	var back CellSummary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Op("add").Kind.IsTxn() || back.Op(result.CycleOp).Kind != result.KindCycle {
		t.Errorf("read back: %+v", back.Ops)
	}
}
