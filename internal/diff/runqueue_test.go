package diff

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// The recorded run-queue pair: the smoke tier of examples/suite.toml run
// twice, nothing changed, beside two spinning processes per core on a
// 2-core machine shared with other sessions' builds (load about 20), with
// each run's run queue recorded (result.RunQueue). Between the two the
// machine's scheduler starved the runs differently: the SQLite
// train-events run's processes waited 35x their CPU time for a core in
// one and 11x in the other, and its throughput moved 2.85x (the busy-share
// drift alone called 16 metrics of it and of tpcb-like significantly
// different). rq-planted-rtt100 is connect-overhead's scenario of it run
// with --network rtt=100ms on the same machine.
const rqBase, rqNew, rqPlanted = "testdata/rq-suite-base", "testdata/rq-suite-new", "testdata/rq-planted-rtt100"

func loadPair(t *testing.T, b, n string, opt Options) *Report {
	t.Helper()
	bi, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	ni, err := Load(n)
	if err != nil {
		t.Fatal(err)
	}
	opt.Thresholds = DefaultThresholds
	rep, err := Compare(bi, ni, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// unchangedBothWays fails t on any metric better or worse between the
// recorded a and b, each way round.
func unchangedBothWays(t *testing.T, a, b string) {
	t.Helper()
	for _, pair := range [][2]string{{b, a}, {a, b}} {
		rep := loadPair(t, pair[0], pair[1], Options{})
		for _, s := range rep.Scenarios {
			for _, d := range s.Decisions {
				if d.Verdict == Worse || d.Verdict == Better {
					t.Errorf("%s vs %s: %s %s: %g -> %g %s (stats %+v)", pair[0], pair[1], s.Name, d.Metric, d.Base, d.New, d.Verdict, d.Stats)
				}
			}
		}
	}
}

// TestRunQueueStarvationIsNoRegression: the recorded pair, each way
// round, has no regression and nothing better: what the run queues
// explain of it is the machine's. Before the run queue was weighed, NEW
// against BASE was 16 regressions in 2 scenarios (exit 4).
func TestRunQueueStarvationIsNoRegression(t *testing.T) {
	unchangedBothWays(t, rqBase, rqNew)
	v := loadPair(t, rqNew, rqBase, Options{})
	for _, s := range v.Scenarios {
		if s.Name != "train-events-jsonb-sqlite-smoke" {
			continue
		}
		d := s.Decisions[0]
		if d.Metric != "txn/s" || d.Stats == nil || d.Stats.RunQueue == nil || d.Stats.RunQueue.BiasPct > -60 {
			t.Errorf("SQLite train-events txn/s: %+v, want the run queues to predict NEW 3x slower", d.Stats)
		}
	}
}

// TestRunQueueKeepsChanges: real changes in the same recorded noise are
// still regressions: the planted rtt=100ms (about five round trips per
// connect-overhead transaction, 4.8x slower) and rtt=200ms (12x slower:
// too few transactions for the latencies, which used to leave nothing
// compared and exit 0) against the recorded BASE,
// and NEW's select-only on SQLite (whose run queues were alike: 22x and
// 24x) slowed 4x; the same run not slowed is ok.
func TestRunQueueKeepsChanges(t *testing.T) {
	rep := loadPair(t, rqBase, rqPlanted, Options{AllowDifferent: true})
	if v := verdicts(rep)["connect-overhead-per-txn-smoke/txn/s"]; v != Worse {
		t.Errorf("rtt=100ms planted: txn/s %q, want worse", v)
	}
	// rtt=200ms: 8 transactions in the window where BASE had 96, too few
	// for any latency: the throughput is judged by the two counts
	rep = loadPair(t, rqBase, "testdata/rq-planted-rtt200", Options{AllowDifferent: true})
	for _, s := range rep.Scenarios {
		for _, d := range s.Decisions {
			if s.Name == "connect-overhead-per-txn-smoke" && d.Metric == "txn/s" && (d.Verdict != Worse || d.Stats == nil || !d.Stats.Counted) {
				t.Errorf("rtt=200ms planted: txn/s %s (stats %+v), want worse, counted", d.Verdict, d.Stats)
			}
		}
	}
	if rep.Regressions == 0 {
		t.Errorf("rtt=200ms planted: no regression")
	}
	name := "/pgbench-select-only-sqlite-smoke.json"
	b, err := result.Load(rqBase + name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    float64
		want string
	}{{1, Ok}, {4, Worse}} {
		n, err := result.Load(rqNew + name)
		if err != nil {
			t.Fatal(err)
		}
		if c.f != 1 {
			n = slowed(n, c.f)
		}
		if v := verdicts(compare(t, b, n, Options{}))[b.Workload+"/txn/s"]; v != c.want {
			t.Errorf("select-only slowed %gx: txn/s %q, want %s", c.f, v, c.want)
		}
	}
}
