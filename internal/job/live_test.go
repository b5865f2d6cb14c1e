package job

import (
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
)

// TestLiveOnPostgres: Spec.Live gets the run so far after its intervals,
// each a Result assembled as the final one is: the telemetry's samples up
// to its last interval (the snapshot is asked for after the interval's
// sample, in order), the CPU of the server txnbench started and the
// machine's, what limited the run so far, and no invariants yet; the last
// comes before Run returns, and the final Result counts at least as much.
// (Whether the server's counters have moved yet is PostgreSQL's to say: a
// busy backend publishes them about once a second.)
func TestLiveOnPostgres(t *testing.T) {
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 2, Duration: 1500 * time.Millisecond, Progress: 250 * time.Millisecond})
	var mu sync.Mutex
	var got []*result.Result
	s.Live = func(r *result.Result) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	}
	r := runJob(t, s, sequentialTempPostgres(t, s))
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("%d live results, want at least 2", len(got))
	}
	for i, p := range got {
		if p.Invariants != nil || p.MeasuredS <= 0 || len(p.Intervals) == 0 {
			t.Errorf("live result %d: invariants %v, measured %.2f s, %d intervals", i, p.Invariants, p.MeasuredS, len(p.Intervals))
		}
		if p.CPU == nil || p.CPU.Part("server") == nil || p.LimitedBy == nil {
			t.Errorf("live result %d: CPU %+v, limited by %v", i, p.CPU, p.LimitedBy)
		}
		if p.Telemetry == nil || len(p.Telemetry.Series) != len(p.Intervals) {
			t.Errorf("live result %d: %d intervals, telemetry %+v", i, len(p.Intervals), p.Telemetry)
			continue
		}
		for j, smp := range p.Telemetry.Series {
			if smp.ElapsedS != p.Intervals[j].ElapsedS {
				t.Errorf("live result %d: sample %d at %.3f s, its interval at %.3f s", i, j, smp.ElapsedS, p.Intervals[j].ElapsedS)
			}
		}
	}
	last := got[len(got)-1]
	if c := r.Op(result.CycleOp); c == nil || c.Count < last.Op(result.CycleOp).Count {
		t.Errorf("the final result counts fewer cycles than the run so far: %+v, %+v", c, last.Op(result.CycleOp))
	}
}
