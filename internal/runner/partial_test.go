package runner

import (
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// partials is a PartialObserver keeping what it is given.
type partials struct {
	Funcs
	got []*Outcome
}

func (p *partials) Partial(o *Outcome) { p.got = append(p.got, o) }

// TestPartialIsTheRunSoFar: after each interval a PartialObserver gets the
// run so far: every interval up to it, and ops' totals that are exactly
// those intervals' (as the final Outcome's are its own), the window
// measured so far growing; the final Outcome holds all of them.
func TestPartialIsTheRunSoFar(t *testing.T) {
	w := &counterWorkload{pause: 5 * time.Millisecond}
	cfg := baseConfig()
	cfg.Iterations = 60
	cfg.Progress = 20 * time.Millisecond
	p := &partials{}
	cfg.Observers = []Observer{p}
	out := mustRun(t, cfg, w)
	if len(p.got) != len(out.Intervals) || len(p.got) < 2 {
		t.Fatalf("%d partial outcomes for %d intervals", len(p.got), len(out.Intervals))
	}
	var last time.Duration
	for i, so := range p.got {
		if len(so.Intervals) != i+1 || so.Measured < last {
			t.Errorf("partial %d: %d intervals, measured %s after %s", i, len(so.Intervals), so.Measured, last)
		}
		last = so.Measured
		for _, o := range so.Ops {
			if o.Kind == result.KindStatement {
				continue
			}
			var sum int64
			for _, iv := range so.Intervals {
				for _, io := range iv.Ops {
					if io.Name == o.Name {
						sum += io.Count
					}
				}
			}
			if sum != o.Count {
				t.Errorf("partial %d: op %s counts %d, its intervals %d", i, o.Name, o.Count, sum)
			}
		}
	}
	final := p.got[len(p.got)-1]
	for i, o := range out.Ops {
		if o.Kind != result.KindStatement && final.Ops[i].Count != o.Count {
			t.Errorf("op %s: the last partial counts %d, the run %d", o.Name, final.Ops[i].Count, o.Count)
		}
	}
}
