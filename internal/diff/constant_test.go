package diff

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/suite"
)

// TestHeldConstantForBackendComparisons: what a published baseline says
// must stay constant before two backends' suites are compared: the
// scenario names (a scenario on one side only is a difference), and the
// correctness assertions (the invariants checked); operation counts,
// concurrency, worker counts and definitions are fixed settings already.
func TestHeldConstantForBackendComparisons(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, scenarios ...string) *Input {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		rep := suite.Report{Format: suite.Format, Name: "s", Tier: "smoke"}
		for _, sc := range scenarios {
			save(t, d, sc+".json", base(t))
			rep.Scenarios = append(rep.Scenarios, suite.Scenario{Name: sc, Kind: suite.KindRun, Workload: "train-events", Result: sc + ".json"})
		}
		writeJSON(t, filepath.Join(d, "suite.json"), rep)
		in, err := Load(d)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	b, n := write("base", "c1", "c4", "soak"), write("new", "c1", "c4", "c8")
	_, err := Compare(b, n, Options{Thresholds: DefaultThresholds})
	var de *DifferentError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "scenario soak only in BASE; scenario c8 only in NEW") {
		t.Fatalf("suites with other scenarios: %v", err)
	}
	if rep, err := Compare(b, n, Options{Thresholds: DefaultThresholds, AllowDifferent: true}); err != nil || rep.Compared != 2 {
		t.Errorf("--allow-different: %v, %+v", err, rep)
	}

	checked := func(names ...string) func(*result.Result) {
		return func(r *result.Result) {
			r.Invariants = &result.Check{OK: true}
			for _, nm := range names {
				r.Invariants.Add(nm, true, "")
			}
		}
	}
	_, err = Compare(resultInput(changed(t, checked("none lost", "applied once"))), resultInput(changed(t, checked("none lost"))), Options{Thresholds: DefaultThresholds})
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "invariants checked applied once, none lost vs none lost") {
		t.Errorf("other correctness assertions: %v", err)
	}
	notChecked := changed(t, func(r *result.Result) { r.Invariants = &result.Check{NotChecked: "timed out"} })
	if _, err := Compare(resultInput(changed(t, checked("none lost"))), resultInput(notChecked), Options{Thresholds: DefaultThresholds}); err != nil {
		t.Errorf("a check that verified nothing is noted, not a different setting: %v", err)
	}
}

// TestCommitsBufferHitsAndTopWait: commits and buffer hits per
// transaction are compared like the other database counters; a changed
// top wait is a note.
func TestCommitsBufferHitsAndTopWait(t *testing.T) {
	tel := func(commits, hits int64, top string) func(*result.Result) {
		return func(r *result.Result) {
			txns, _ := r.Transactions()
			r.Telemetry = &result.Telemetry{
				Database: map[string]int64{"xact_commit": commits * txns, "blks_hit": hits * txns, "tup_inserted": txns},
				Waits:    &result.Waits{ActiveSamples: 100, Events: []result.WaitShare{{Name: top, Samples: 60}, {Name: "CPU", Samples: 40}}},
			}
		}
	}
	rep := compare(t, changed(t, tel(3, 10, "Client:ClientRead")), changed(t, tel(6, 10, "Lock:transactionid")), Options{})
	v := verdicts(rep)
	if v["train-events/db commits/txn"] != Worse || v["train-events/db blks_hit/txn"] != Ok || v["train-events/db tup_inserted/txn"] != Ok {
		t.Errorf("verdicts %v", v)
	}
	if notes := strings.Join(rep.Scenarios[0].Notes, "\n"); !strings.Contains(notes, "top wait changed: Client:ClientRead (60% of samples) in BASE, Lock:transactionid (60%) in NEW") {
		t.Errorf("notes:\n%s", notes)
	}
	rep = compare(t, changed(t, tel(3, 10, "Client:ClientRead")), changed(t, tel(3, 10, "Client:ClientRead")), Options{})
	if notes := strings.Join(rep.Scenarios[0].Notes, "\n"); strings.Contains(notes, "top wait") {
		t.Errorf("the same top wait noted:\n%s", notes)
	}
}
