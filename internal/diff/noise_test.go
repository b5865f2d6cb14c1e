package diff

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// The recorded A/A pair: the smoke tier of examples/suite.toml run twice,
// nothing changed, on a 2-core machine shared with six other sessions'
// builds and tests. Its throughput moved by up to 0.49x and its tails by
// up to 5.8x (with the thresholds alone: 50 regressions in 4 of 10
// scenarios).
const aaBase, aaNew = "testdata/aa-suite-base", "testdata/aa-suite-new"

// TestRecordedNoiseIsNoRegression: noise with no change is no regression,
// and what would have passed the thresholds is ~ (not significant).
func TestRecordedNoiseIsNoRegression(t *testing.T) {
	b, err := Load(aaBase)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Load(aaNew)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(b, n, Options{Thresholds: DefaultThresholds})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Regressions != 0 {
		for _, s := range rep.Scenarios {
			for _, d := range s.Decisions {
				if d.Verdict == Worse {
					t.Errorf("%s %s: %g -> %g worse (stats %+v)", s.Name, d.Metric, d.Base, d.New, d.Stats)
				}
			}
		}
	}
	if rep.NotSignificant == 0 {
		t.Errorf("no change beyond a threshold was found not significant: the pair is meant to be noisy")
	}
	v := verdicts(rep)
	if got := v["pgbench-select-only-sqlite-smoke/txn/s"]; got != Same {
		t.Errorf("select-only txn/s 0.49x between identical runs: %q, want ~", got)
	}
}

// slowed plants a slowdown by f into a recorded result: every op and
// interval completes 1/f as many ops, each f times as long.
func slowed(r *result.Result, f float64) *result.Result {
	scale := func(c *int64) { *c = int64(float64(*c) / f) }
	for i := range r.Ops {
		o := &r.Ops[i]
		scale(&o.Count)
		o.Mean, o.P50, o.P90, o.P95, o.P99, o.Max = o.Mean*f, o.P50*f, o.P90*f, o.P95*f, o.P99*f, o.Max*f
	}
	for i := range r.Intervals {
		for j := range r.Intervals[i].Ops {
			o := &r.Intervals[i].Ops[j]
			scale(&o.Count)
			o.Mean, o.P50, o.P90, o.P95, o.P99, o.Max = o.Mean*f, o.P50*f, o.P90*f, o.P95*f, o.P99*f, o.Max*f
		}
	}
	if t := r.Telemetry; t != nil { // the database's work goes with the transactions
		for k, v := range t.Database {
			t.Database[k] = int64(float64(v) / f)
		}
	}
	return r
}

// TestRecordedChangeIsRegression: a real slowdown in the same noise is
// still a regression: the recorded connect-overhead pair with rtt=20ms
// planted on one side (20 ms per round trip of every connect), and the
// A/A pair's NEW slowed by 4x.
func TestRecordedChangeIsRegression(t *testing.T) {
	b, err := Load("testdata/planted-rtt0.json")
	if err != nil {
		t.Fatal(err)
	}
	n, err := Load("testdata/planted-rtt20.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(b, n, Options{Thresholds: DefaultThresholds, AllowDifferent: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(rep)["connect-overhead/txn/s"]; v != Worse {
		t.Errorf("rtt=20ms planted: txn/s %q, want worse", v)
	}
	for _, name := range []string{"connect-overhead-per-txn-smoke.json", "pgbench-select-only-sqlite-smoke.json"} {
		b, err := result.Load(aaBase + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		n, err := result.Load(aaNew + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			f    float64
			want string
		}{{1, Ok}, {4, Worse}} {
			if c.f != 1 {
				n = slowed(n, c.f)
			}
			rep := compare(t, b, n, Options{})
			if v := verdicts(rep)[b.Workload+"/txn/s"]; (v == Worse) != (c.want == Worse) {
				t.Errorf("%s slowed %gx: txn/s %q, want %s", name, c.f, v, c.want)
			}
		}
	}
}
