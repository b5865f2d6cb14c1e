package result_test

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

func TestKindLabel(t *testing.T) {
	for k, want := range map[result.Kind]string{"": "transaction", result.KindTxn: "transaction", result.KindCycle: "cycle", result.KindWait: "wait", result.KindStatement: "statement", result.KindPhase: "phase"} {
		if got := k.Label(); got != want {
			t.Errorf("Kind(%q).Label() = %q, want %q", k, got, want)
		}
		if got := k.IsTxn(); got != (want == "transaction") {
			t.Errorf("Kind(%q).IsTxn() = %v", k, got)
		}
	}
}

// TestTxnPerS counts transactions only: not the cycle, and nothing
// without a window.
func TestTxnPerS(t *testing.T) {
	r := sample(t, 1, 2, true)
	ok, _ := r.Transactions()
	if want := float64(r.Op("add").Count+r.Op("process").Count) / r.MeasuredS; ok == 0 || r.TxnPerS() != want {
		t.Errorf("TxnPerS = %g, want %g", r.TxnPerS(), want)
	}
	iv := r.Intervals[0]
	if want := float64(iv.Ops[0].Count) / iv.LengthS; iv.TxnPerS() != want {
		t.Errorf("interval TxnPerS = %g, want %g (add's, not the cycle's)", iv.TxnPerS(), want)
	}
	r.MeasuredS, iv.LengthS = 0, 0
	if r.TxnPerS() != 0 || iv.TxnPerS() != 0 {
		t.Errorf("TxnPerS without a window = %g, %g; want 0", r.TxnPerS(), iv.TxnPerS())
	}
}
