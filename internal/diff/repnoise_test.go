package diff

import "testing"

// The recorded study pair: the smoke tier's train-events-clients-smoke
// cell clients=1 (repeat = 2) of two identical suites run back to back
// beside two spinning processes per core on the shared 2-core machine
// (bench/diff-noise.sh). Each side's two repetitions agreed with each
// other (db blks_hit/txn 2,387 and 2,478 in BASE, 3,644 and 3,797 in NEW)
// but not with the other suite's: with the repetitions' spread alone the
// diff called blks_hit/txn +50.7% (+22% to +130%) WORSE, exit 4, though
// nothing changed and the run queues predicted NEW the faster.
const repBase, repNew = "testdata/aa-study-base", "testdata/aa-study-new"

// TestRepetitionsShareTheirSuitesState: two repetitions that agree by
// chance are no evidence that the next suite's machine and server agree:
// the recorded pair has no regression either way round, while a planted
// slowdown and a planted heavier transaction (4x the blocks per
// transaction: a sequential scan where an index was) in the same
// repetitions are still regressions.
func TestRepetitionsShareTheirSuitesState(t *testing.T) {
	unchangedBothWays(t, repBase, repNew)
	b, err := Load(repBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		plant  func(n *Input)
		metric string
	}{
		{func(n *Input) {
			for _, r := range n.Units[0].Results {
				slowed(r, 4)
			}
		}, "txn/s"},
		{func(n *Input) {
			for _, r := range n.Units[0].Results {
				r.Telemetry.Database["blks_hit"] *= 4
			}
		}, "db blks_hit/txn"},
	} {
		n, err := Load(repNew)
		if err != nil {
			t.Fatal(err)
		}
		c.plant(n)
		rep, err := Compare(b, n, Options{Thresholds: DefaultThresholds})
		if err != nil {
			t.Fatal(err)
		}
		if v := verdicts(rep)[n.Units[0].Name+"/"+c.metric]; v != Worse {
			t.Errorf("planted 4x %s: %q, want %s", c.metric, v, Worse)
		}
	}
}
