package diff

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// tpcbPair is the recorded run-queue pair's tpcb-like scenario (4 clients
// on one branch row; its sessions waited on locks in 28% and 35% of
// samples), NEW planted at ratio times BASE's throughput, with the
// stretches of the unexplained A/A outlier (docs/BENCHMARKS.md, "The
// repetitions' drift": 93.0 against 443.4 txn/s, the slower side's
// processes waiting 13x their CPU time for a core and the faster's 10x).
// noLockBase takes BASE's lock waits away.
func tpcbPair(t *testing.T, a, b string, ratio float64, noLockBase bool) *Report {
	t.Helper()
	name := "/pgbench-tpcb-like-smoke.json"
	base, err := result.Load(a + name)
	if err != nil {
		t.Fatal(err)
	}
	n, err := result.Load(b + name)
	if err != nil {
		t.Fatal(err)
	}
	n = slowed(n, n.TxnPerS()/(ratio*base.TxnPerS()))
	slow, fast := 14.0, 11.0
	if ratio < 1 {
		slow, fast = fast, slow
	}
	base.CPU.RunQueue.WaitS = (slow - 1) * base.CPU.RunQueue.CPUS
	n.CPU.RunQueue.WaitS = (fast - 1) * n.CPU.RunQueue.CPUS
	if noLockBase {
		base.Telemetry.Waits.LockWaitSamples = 0
	}
	return compare(t, base, n, Options{})
}

// TestLockChainStarvationIsNoRegression: identical tpcb-like runs on a
// saturated machine moved 4.8x (one side's client starved while its
// session held the branch row, so the others waited on the lock: a chain
// the run's clients do not average, and which its run queue shows only
// 1.3x of). Planted onto the recorded pair, each way round and either
// direction, nothing is better or worse; 8x still is.
func TestLockChainStarvationIsNoRegression(t *testing.T) {
	for _, p := range [][2]string{{rqBase, rqNew}, {rqNew, rqBase}} {
		for _, ratio := range []float64{4.8, 1 / 4.8} {
			rep := tpcbPair(t, p[0], p[1], ratio, false)
			for _, s := range rep.Scenarios {
				for _, d := range s.Decisions {
					if d.Verdict == Worse || d.Verdict == Better {
						t.Errorf("%s vs %s at %.2fx: %s %g -> %g %s (stats %+v)", p[0], p[1], ratio, d.Metric, d.Base, d.New, d.Verdict, d.Stats)
					}
				}
			}
		}
		rep := tpcbPair(t, p[0], p[1], 1/8.0, false)
		if v := verdicts(rep)["script/txn/s"]; v != Worse || rep.Regressions == 0 {
			t.Errorf("%s vs %s slowed 8x: txn/s %q, %d regressions, want worse", p[0], p[1], v, rep.Regressions)
		}
	}
}

// TestNewLockWaitIsNotWidened: a lock wait only NEW has is the change's,
// not the setup's: the same 4.8x slowdown, BASE without lock waits, is a
// regression.
func TestNewLockWaitIsNotWidened(t *testing.T) {
	rep := tpcbPair(t, rqBase, rqNew, 1/4.8, true)
	if v := verdicts(rep)["script/txn/s"]; v != Worse {
		t.Errorf("4.8x slower with a lock wait new in NEW: txn/s %q, want worse", v)
	}
}
