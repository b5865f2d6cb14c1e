package suite

import (
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// TestSelectTiers: several tiers run tier by tier, each scenario once
// under the first tier that has it; "all" is every tier; an unknown or
// empty tier is refused.
func TestSelectTiers(t *testing.T) {
	f, err := Parse("demo.toml", []byte(`name = "demo"
[[scenario]]
name = "a"
workload = "w"
tiers = ["nightly", "smoke"]
[[scenario]]
name = "b"
workload = "w"
tiers = ["soak"]
[[scenario]]
name = "c"
workload = "w"
tiers = ["smoke"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(es []Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.Name+"@"+e.Tier)
		}
		return strings.Join(out, " ")
	}
	for spec, want := range map[string]string{
		"smoke":              "a@smoke c@smoke",
		"soak, smoke":        "b@soak a@smoke c@smoke",
		"smoke,nightly":      "a@smoke c@smoke",
		"nightly,smoke,soak": "a@nightly c@smoke b@soak",
		"all":                "a@nightly c@smoke b@soak",
	} {
		es, tiers, err := f.Select(spec)
		if err != nil || names(es) != want {
			t.Errorf("Select(%q) = %s, %v; want %s", spec, names(es), err, want)
		}
		if spec == "all" && strings.Join(tiers, ",") != "nightly,smoke,soak" {
			t.Errorf("all = %v", tiers)
		}
	}
	for spec, want := range map[string]string{
		"smoke,nighty": `no scenario is in tier "nighty": choose one of nightly, smoke, soak`,
		"smoke,":       "an empty tier in the list",
	} {
		if _, _, err := f.Select(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Select(%q): %v, want %q", spec, err, want)
		}
	}
	if _, err := Parse("x.toml", []byte("name = \"x\"\n[[scenario]]\nname = \"a\"\nworkload = \"w\"\ntiers = [\"all\"]\n"), nil); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("a tier named all: %v", err)
	}
}

// TestMarkdownSeveralTiers: the title names every tier run.
func TestMarkdownSeveralTiers(t *testing.T) {
	r := sampleReport()
	r.Tier = "smoke,nightly"
	var b strings.Builder
	WriteMarkdown(&b, r)
	if !strings.HasPrefix(b.String(), "# Suite baseline, tiers smoke, nightly\n") {
		t.Errorf("title: %s", strings.SplitN(b.String(), "\n", 2)[0])
	}
}

// phased is a run of one transaction op, a phase and telemetry: its
// phase table is the transaction, then the phase.
func phased(startMS, signalMS float64, commits int64, waits map[string]int64) *result.Result {
	h := func(ms ...float64) *metrics.Hist {
		x := metrics.NewHist()
		for _, v := range ms {
			x.Record(time.Duration(v * float64(time.Millisecond)))
		}
		return x
	}
	op := func(name string, kind result.Kind, x *metrics.Hist) result.Op {
		return result.Op{Name: name, Kind: kind, Summary: x.Summary(), Hist: x}
	}
	w := &result.Waits{}
	for ev, n := range waits {
		w.Events = append(w.Events, result.WaitShare{Name: ev, Samples: n})
		w.ActiveSamples += n
	}
	return &result.Result{MeasuredS: 1, Config: result.Config{Clients: 2},
		Ops: []result.Op{
			op("start", result.KindTxn, h(startMS, startMS)),
			op("signal_to_completion", result.KindPhase, h(signalMS, signalMS)),
		},
		Telemetry: &result.Telemetry{Database: map[string]int64{"xact_commit": commits, "blks_hit": 10 * commits, "wal_bytes": 1}, Waits: w},
	}
}

// TestSummaryPhasesAndDatabase: a run's row carries its phases, the
// database counters of the tables (no others) and its top wait; a
// study's the slowest cell's phases, the counters summed over cells of
// their medians and the top wait over every run.
func TestSummaryPhasesAndDatabase(t *testing.T) {
	s := RunSummary(phased(5, 300, 40, map[string]int64{"Client:ClientRead": 6, "CPU": 4}))
	if len(s.Phases) != 2 || s.Phases[0].Name != "start" || s.Phases[0].Count != 2 || !near(s.Phases[1].MeanMS, 300) || !near(s.Phases[1].MaxMS, 300) {
		t.Errorf("phases %+v", s.Phases)
	}
	if s.Ops != 2 || len(s.Database) != 2 || s.Database["xact_commit"] != 40 || s.Database["blks_hit"] != 400 {
		t.Errorf("ops %d, database %v", s.Ops, s.Database)
	}
	if s.TopWait != "Client:ClientRead" || s.TopWaitShare != 0.6 {
		t.Errorf("top wait %s %.2f", s.TopWait, s.TopWaitShare)
	}
	st := StudySummary([][]*result.Result{
		{phased(5, 100, 10, map[string]int64{"CPU": 5}), phased(5, 110, 30, map[string]int64{"CPU": 5}), phased(5, 120, 20, nil)},
		{phased(50, 900, 100, map[string]int64{"Lock:tuple": 4}), phased(60, 1000, 200, map[string]int64{"Lock:tuple": 8})},
	})
	if len(st.Phases) != 2 || !near(st.Phases[0].MeanMS, 55) || !near(st.Phases[1].MeanMS, 950) {
		t.Errorf("study phases %+v: want the slow cell's medians", st.Phases)
	}
	if st.Database["xact_commit"] != 20+150 || st.Database["blks_hit"] != 200+1500 {
		t.Errorf("study database %v", st.Database)
	}
	if st.TopWait != "Lock:tuple" || !near(st.TopWaitShare, 12.0/22) {
		t.Errorf("study top wait %s %.3f", st.TopWait, st.TopWaitShare)
	}
	var none Summary = RunSummary(&result.Result{})
	if none.Database != nil || none.TopWait != "" || none.Phases != nil {
		t.Errorf("a run without telemetry or phases: %+v", none)
	}
}

// TestSuiteCommitsAddUp: the database table's commits add up as the
// run's report adds them (the server's counters run until the clients
// are gone, so they hold the transactions completed after the window),
// for a run and for a study summed over its cells, each cell's
// repetition with the median commits; before, the table printed the
// commits alone beside a throughput that left those out.
func TestSuiteCommitsAddUp(t *testing.T) {
	run := func(commits, after int64) *result.Result {
		r := phased(5, 300, commits, nil)
		r.Ops[0].AfterWindow = after
		return r
	}
	rep := sampleReport()
	rep.Scenarios = rep.Scenarios[:1]
	rep.Scenarios[0].Summary = RunSummary(run(5, 3))
	study := rep.Scenarios[0]
	study.Name = "ladder"
	study.Summary = StudySummary([][]*result.Result{{run(6, 4), run(4, 2), run(9, 7)}, {run(12, 10)}})
	rep.Scenarios = append(rep.Scenarios, study)
	var b strings.Builder
	WriteMarkdown(&b, rep)
	for _, want := range []string{
		" | 5 = 2 in the window + 3 completed after it | ",   // the run: 2 start ops in the window
		" | 18 = 4 in the window + 14 completed after it | ", // the study: 6 = 2 + 4, and 12 = 2 + 10
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("suite.md lacks %q:\n%s", want, b.String())
		}
	}
}
