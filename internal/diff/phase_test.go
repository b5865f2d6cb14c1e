package diff

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// withPhases adds to r two phases, as the workflow workload records them:
// signal_to_completion, and one named like r's op add (its numbers scaled
// by x, to tell it from the op).
func withPhases(x float64) func(*result.Result) {
	return func(r *result.Result) {
		add := *r.Op("add")
		stc := add
		stc.Name, stc.Kind = "signal_to_completion", result.KindPhase
		add.Kind = result.KindPhase
		add.Mean, add.P50, add.P95, add.P99 = add.Mean*x, add.P50*x, add.P95*x, add.P99*x
		r.Ops = append(r.Ops, stc, add)
	}
}

// TestPhasesAreCompared: a workload's phases are compared like ops
// (latency percentiles and count rate), keyed by their kind, so a phase
// named like an op is compared with that phase and never with the op.
func TestPhasesAreCompared(t *testing.T) {
	stcP95 := func(r *result.Result) {
		for i := range r.Ops {
			if r.Ops[i].Name == "signal_to_completion" {
				r.Ops[i].P95 *= 2
			}
		}
	}
	rep := compare(t, changed(t, withPhases(1)), changed(t, both(withPhases(3), stcP95)), Options{})
	v := verdicts(rep)
	for m, want := range map[string]string{
		"signal_to_completion (phase) p95 ms": Worse,
		"signal_to_completion (phase) p50 ms": Ok,
		"signal_to_completion (phase) ops/s":  Ok,
		"add (phase) p95 ms":                  Worse, // the phase tripled
		"add p95 ms":                          Ok,    // the op did not move
		"add (phase) mean ms":                 Worse,
		"add mean ms":                         Ok,
		"add ops/s":                           Ok,
	} {
		if got, ok := v["train-events/"+m]; !ok {
			t.Errorf("%s: not compared (%v)", m, v)
		} else if got != want {
			t.Errorf("%s: %s, want %s", m, got, want)
		}
	}
	if _, ok := v["train-events/signal_to_completion (phase) errors"]; ok {
		t.Error("a phase's errors compared: its transactions fail, not it")
	}
}
