package diff

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestUnfinishedOpsAreARegression: transactions left running when the run
// ended (a hang) count against NEW and are said either way.
func TestUnfinishedOpsAreARegression(t *testing.T) {
	hang := func(r *result.Result) {
		for i := range r.Ops {
			if r.Ops[i].Kind.IsTxn() {
				r.Ops[i].Unfinished, r.Ops[i].UnfinishedMaxMS = 4, 10000
				return
			}
		}
	}
	rep := compare(t, base(t), changed(t, hang), Options{})
	sc := rep.Scenarios[0]
	if v := verdicts(rep)[sc.Name+"/unfinished ops"]; v != Worse || sc.Regressions == 0 {
		t.Errorf("unfinished ops: verdict %q, %d regressions", v, sc.Regressions)
	}
	if notes := strings.Join(sc.Notes, "\n"); !strings.Contains(notes, "transactions unfinished when the run ended, per run: BASE 0, NEW 4") {
		t.Errorf("notes %q", notes)
	}
	rep = compare(t, changed(t, hang), base(t), Options{})
	if _, ok := verdicts(rep)[rep.Scenarios[0].Name+"/unfinished ops"]; ok || rep.Scenarios[0].Regressions != 0 {
		t.Errorf("fewer unfinished ops in NEW judged: %+v", rep.Scenarios[0])
	}
}
