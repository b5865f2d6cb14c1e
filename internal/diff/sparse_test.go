package diff

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// thinned takes one transaction off every interval of r that completed
// any (its totals with them), as a run of the same setup may complete by
// chance when each interval holds one to four.
func thinned(r *result.Result) *result.Result {
	cut := map[string]int64{}
	for i := range r.Intervals {
		for j := range r.Intervals[i].Ops {
			if o := &r.Intervals[i].Ops[j]; o.Count > 0 {
				o.Count--
				cut[o.Name]++
			}
		}
	}
	for i := range r.Ops {
		r.Ops[i].Count -= cut[r.Ops[i].Name]
	}
	return r
}

// quiet plants an idle machine into r's telemetry: nothing but txnbench
// busy, so its drift is the quiet machine's and what decides is what the
// run shows of its own noise.
func quiet(r *result.Result) *result.Result {
	for i := range r.Telemetry.Series {
		s := &r.Telemetry.Series[i]
		s.MachineCPU = s.ClientCPU / float64(r.Machine.CPUs)
	}
	return r
}

// TestSparseIntervalsAreCounted: a single run whose intervals hold a
// handful of transactions, some none, is judged by its counts. The
// recorded rq-planted-rtt100 run (20 transactions in 4 s, 10 of its 20
// intervals empty) against itself with one transaction off each interval
// that had any (10: Poisson noise of about 15 events, p about 0.07), on a
// quiet machine, is no regression: its intervals' rates (the empty ones
// dropped, having no logarithm) looked steadier than the count, and
// called it WORSE (-50%, -70.7% to -14.6%, p=0.015). A planted change that leaves an
// interval empty is still one: the recorded dense connect-overhead run
// against itself slowed 30x (one transaction an interval or none).
func TestSparseIntervalsAreCounted(t *testing.T) {
	const sparse = rqPlanted + "/connect-overhead-per-txn-smoke.json"
	load := func(path string) *result.Result {
		r, err := result.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name   string
		b, n   *result.Result
		want   string
		counts bool
	}{
		{"thinned by chance, quiet machine", quiet(load(sparse)), thinned(quiet(load(sparse))), Same, true},
		{"the same run", quiet(load(sparse)), quiet(load(sparse)), Ok, true},
		{"slowed 30x", load(aaBase + "/connect-overhead-per-txn-smoke.json"), slowed(load(aaBase+"/connect-overhead-per-txn-smoke.json"), 30), Worse, true},
		{"dense, not slowed", load(aaBase + "/connect-overhead-per-txn-smoke.json"), load(aaNew + "/connect-overhead-per-txn-smoke.json"), Ok, false},
	} {
		rep := compare(t, c.b, c.n, Options{})
		var d *Decision
		for i := range rep.Scenarios[0].Decisions {
			if x := &rep.Scenarios[0].Decisions[i]; x.Metric == "txn/s" {
				d = x
			}
		}
		if d == nil {
			t.Fatalf("%s: no txn/s decision: %+v", c.name, rep.Scenarios[0])
		}
		if d.Verdict != c.want && !(c.want == Ok && d.Verdict == Same) {
			t.Errorf("%s: txn/s %g -> %g %s (stats %+v), want %s", c.name, d.Base, d.New, d.Verdict, d.Stats, c.want)
		}
		if d.Stats == nil || d.Stats.Counted != c.counts {
			t.Errorf("%s: txn/s stats %+v, want counted %v", c.name, d.Stats, c.counts)
		}
	}
}
