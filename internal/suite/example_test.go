package suite

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestWorkflowBaselineExample: examples/workflow-baseline.toml holds the
// published baseline's scenarios with their operation counts, concurrency
// and signal workers, in its tiers, and the ladder beyond c16; the ladder's
// rungs (ops 0 here) run 10 s each, long enough to read a rate (a wave of
// 16 workflows per client measured 0.3-1.7 s). (The cli's
// TestWorkflowBaselineValidates checks its flags with the workload's.)
func TestWorkflowBaselineExample(t *testing.T) {
	f, err := Load("../../examples/workflow-baseline.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		tier, scenario     string
		ops, conc, workers int
	}{
		"delayed-burst-smoke":                  {"smoke", "delayed-burst", 12, 1, 8},
		"immediate-burst-smoke":                {"smoke", "immediate-burst", 24, 1, 8},
		"delayed-burst-nightly":                {"nightly", "delayed-burst", 48, 1, 8},
		"immediate-burst-nightly":              {"nightly", "immediate-burst", 120, 1, 8},
		"synthetic-external-resume-nightly":    {"nightly", "external-resume", 36, 8, 8},
		"signal-roundtrip-soak":                {"soak", "signal-roundtrip", 108, 8, 8},
		"signal-roundtrip-capacity-c1":         {"capacity", "signal-roundtrip", 0, 1, 8},
		"signal-roundtrip-capacity-c4":         {"capacity", "signal-roundtrip", 0, 4, 8},
		"signal-roundtrip-capacity-c8":         {"capacity", "signal-roundtrip", 0, 8, 8},
		"signal-roundtrip-capacity-c16":        {"capacity", "signal-roundtrip", 0, 16, 8},
		"signal-roundtrip-capacity-c32":        {"capacity", "signal-roundtrip", 0, 32, 8},
		"signal-roundtrip-capacity-c64":        {"capacity", "signal-roundtrip", 0, 64, 8},
		"signal-roundtrip-latency-serial":      {"latency-serial", "signal-roundtrip", 16, 1, 1},
		"signal-roundtrip-throughput-parallel": {"throughput-parallel", "signal-roundtrip", 96, 16, 8},
	}
	if got := strings.Join(f.Tiers(), ","); got != "smoke,nightly,soak,capacity,latency-serial,throughput-parallel" {
		t.Errorf("tiers %s", got)
	}
	if len(f.Entries) != len(want) {
		t.Errorf("%d scenarios, want %d", len(f.Entries), len(want))
	}
	for _, e := range f.Entries {
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("scenario %s is not the baseline's", e.Name)
			continue
		}
		length := "--iterations=" + strconv.Itoa(w.ops)
		if w.ops == 0 {
			length = "--duration=10s"
		}
		for _, arg := range []string{"--scenario=" + w.scenario, length, "--clients=" + strconv.Itoa(w.conc), "--signal-workers=" + strconv.Itoa(w.workers), "--db=temp-postgres", "--seed=42"} {
			if !slices.Contains(e.Args, arg) {
				t.Errorf("%s: no %s in %v", e.Name, arg, e.Args)
			}
		}
		if e.Workload != "workflow" || len(e.Tiers) != 1 || e.Tiers[0] != w.tier || e.Kind() != KindRun {
			t.Errorf("%s: %s %v %s", e.Name, e.Workload, e.Tiers, e.Kind())
		}
	}
}
