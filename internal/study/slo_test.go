package study

import (
	"math"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

func TestParseSLO(t *testing.T) {
	cases := []struct {
		in   string
		want SLO
		err  string
	}{
		{in: "cycle.p99<=50ms", want: SLO{Op: "cycle", Stat: "p99", Cmp: "<=", Value: 50}},
		{in: " cycle.p99 <= 1.5s ", want: SLO{Op: "cycle", Stat: "p99", Cmp: "<=", Value: 1500}},
		{in: "add.mean<250us", want: SLO{Op: "add", Stat: "mean", Cmp: "<", Value: 0.25}},
		{in: "errors<=0.1%", want: SLO{Stat: "errors", Cmp: "<=", Value: 0.1, Pct: true}},
		{in: "errors<=0", want: SLO{Stat: "errors", Cmp: "<=", Value: 0}},
		{in: "cycle.rate>=100/s", want: SLO{Op: "cycle", Stat: "rate", Cmp: ">=", Value: 100}},
		{in: "my.script.count>5", want: SLO{Op: "my.script", Stat: "count", Cmp: ">", Value: 5}},
		{in: "cycle.p99<=50", err: "positive duration with its unit"},
		{in: "cycle.p99<=-5ms", err: "positive duration"},
		{in: "cycle.p98<=5ms", err: `unknown statistic "p98"`},
		{in: "cycle<=5ms", err: "want OP.STAT<=VALUE"},
		{in: ".p99<=5ms", err: "want OP.STAT<=VALUE"},
		{in: "cycle.p99", err: "want OP.STAT<=VALUE"},
		{in: "cycle.p99<=", err: "want OP.STAT<=VALUE"},
		{in: "errors<=101%", err: "a share from 0% to 100%"},
		{in: "errors<=NaN", err: "a share from 0% to 100%"},
		{in: "cycle.rate>=inf", err: "a number of 0 or more"},
		{in: "errors<=1%<=2%", err: "one comparison per goal"},
	}
	for _, c := range cases {
		g, err := ParseSLO(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		c.want.Text = c.in
		if err != nil || g != c.want {
			t.Errorf("%q: %+v %v, want %+v", c.in, g, err, c.want)
		}
	}
}

// FuzzParseSLO: the parser never panics, and a goal it accepts has a
// known statistic and comparison, a finite bound of 0 or more, and its
// text as given.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"cycle.p99<=50ms", "errors<=0.1%", "a.rate>=1/s", "x.count>3", "errors<0", "..<=", "p99<=5ms<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseSLO(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--slo ") {
				t.Errorf("%q: error %q does not name the flag", s, err)
			}
			return
		}
		_, stat := sloStats[g.Stat]
		if g.Text != s || !stat && g.Stat != "errors" || !strings.Contains("<= < >= >", g.Cmp) || g.Cmp == "" ||
			math.IsNaN(g.Value) || math.IsInf(g.Value, 0) || g.Value < 0 || (g.Stat == "errors") != (g.Op == "") {
			t.Errorf("%q: accepted as %+v", s, g)
		}
	})
}

func TestSLOMeasure(t *testing.T) {
	r := res(100, 10, 10, true)
	r.Ops[0].Errors = map[string]int64{"timeout": 1}
	for _, c := range []struct {
		slo  string
		want float64
		met  bool
	}{
		{"add.p99<=10ms", r.Ops[0].P99, r.Ops[0].P99 <= 10},
		{"add.rate>=10", 10, true},
		{"add.count>100", 100, false},
		{"errors<=1%", 100.0 / 101, true},
		{"errors<=0", 1, false},
	} {
		g, _ := ParseSLO(c.slo)
		v, err := g.Measure(r)
		if err != nil || math.Abs(v-c.want) > 1e-9 || g.Met(v) != c.met {
			t.Errorf("%s: measured %g (met %v) %v, want %g (met %v)", c.slo, v, g.Met(v), err, c.want, c.met)
		}
	}
	g, _ := ParseSLO("nope.p99<=1ms")
	if _, err := g.Measure(r); err == nil || !strings.Contains(err.Error(), "its ops are add, cycle") {
		t.Errorf("a goal on a missing op: %v", err)
	}
	empty := &result.Result{Ops: []result.Op{{Name: "add"}}}
	if g, _ := ParseSLO("add.p99<=1h"); g.Met(must(g.Measure(empty))) {
		t.Error("a latency goal was met by an op that measured nothing")
	}
	if g, _ := ParseSLO("errors<=100%"); g.Met(must(g.Measure(empty))) == false {
		t.Error("errors<=100% is met by anything")
	}
}

func must(v float64, _ error) float64 { return v }
