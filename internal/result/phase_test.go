package result_test

import (
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// withPhaseAdd is a result whose phase add is named like its op add, in
// the totals and in an interval, after the op as the runner orders them.
func withPhaseAdd(t *testing.T) *result.Result {
	t.Helper()
	r := sample(t, 1, 4, true)
	ph := op("add", 4, 0, nil, nil, 7, 8, 9)
	ph.Kind = result.KindPhase
	r.Ops = append(r.Ops, ph)
	iop := intervalOp(t, "add", 0, 0, 7, 8, 9)
	iop.Kind = result.KindPhase
	r.Intervals[0].Ops = append(r.Intervals[0].Ops, iop)
	return r
}

// TestPhaseNamedLikeAnOp: a phase named like an op keeps its own kind in
// the intervals through Save and Load (which do not save an interval's
// kind), and Merge adds it to the same phase, never to the op.
func TestPhaseNamedLikeAnOp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := withPhaseAdd(t).Save(path); err != nil {
		t.Fatal(err)
	}
	r, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(r *result.Result) (ops, iv []result.Kind, counts []int64) {
		for _, o := range r.Ops {
			if o.Name == "add" {
				ops = append(ops, o.Kind)
			}
		}
		for _, o := range r.Intervals[0].Ops {
			if o.Name == "add" {
				iv = append(iv, o.Kind)
				counts = append(counts, o.Count)
			}
		}
		return ops, iv, counts
	}
	if _, iv, _ := kinds(r); len(iv) != 2 || iv[0] != result.KindTxn || iv[1] != result.KindPhase {
		t.Errorf("loaded interval kinds of add %v, want [txn phase]", iv)
	}
	a := withPhaseAdd(t)
	_, _, one := kinds(a)
	m, err := result.Merge([]*result.Result{a, withPhaseAdd(t)})
	if err != nil {
		t.Fatal(err)
	}
	ops, iv, counts := kinds(m)
	if len(ops) != 2 || ops[1] != result.KindPhase || len(iv) != 2 || iv[1] != result.KindPhase ||
		counts[0] != 2*one[0] || counts[1] != 2*one[1] {
		t.Errorf("merged: ops %v, interval %v counts %v (one run's %v): want the op and the phase apart, each doubled", ops, iv, counts, one)
	}
}
