package result_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestKindsSavedAsBefore: a transaction's kind is explicit in memory but
// absent from the saved JSON (as results have always been written), the
// other kinds are saved, intervals save none, and Load makes every kind
// explicit again, an interval op's from the op of the same name.
func TestKindsSavedAsBefore(t *testing.T) {
	r := sample(t, 1, 2, true)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"kind"`); n != 1 {
		t.Errorf("the saved result has %d kinds, want 1 (the cycle's):\n%s", n, b)
	}
	if !strings.Contains(string(b), `"kind": "cycle"`) || strings.Contains(string(b), `"txn"`) {
		t.Errorf("the saved kinds are not the cycle's alone:\n%s", b)
	}
	got, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got.Ops {
		if want := kindOf(o.Name); o.Kind != want {
			t.Errorf("loaded op %s has kind %q, want %q", o.Name, o.Kind, want)
		}
	}
	for i, iv := range got.Intervals {
		for _, o := range iv.Ops {
			if want := kindOf(o.Name); o.Kind != want {
				t.Errorf("loaded interval %d op %s has kind %q, want %q", i, o.Name, o.Kind, want)
			}
		}
	}
}

func TestKindLabel(t *testing.T) {
	for k, want := range map[result.Kind]string{"": "transaction", result.KindTxn: "transaction", result.KindCycle: "cycle", result.KindWait: "wait", result.KindStatement: "statement"} {
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
