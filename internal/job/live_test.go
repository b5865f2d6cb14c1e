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
// each a Result assembled as the final one is: the server's counters and
// the telemetry's samples so far, the CPU of the server txnbench started
// and the machine's, what limited the run so far, and no invariants yet;
// the last comes before Run returns, and the final Result counts at least
// as much.
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
	var commits int64
	for i, p := range got {
		if p.Invariants != nil || p.MeasuredS <= 0 || len(p.Intervals) == 0 {
			t.Errorf("live result %d: invariants %v, measured %.2f s, %d intervals", i, p.Invariants, p.MeasuredS, len(p.Intervals))
		}
		if p.CPU == nil || p.CPU.Part("server") == nil || p.LimitedBy == nil {
			t.Errorf("live result %d: CPU %+v, limited by %v", i, p.CPU, p.LimitedBy)
		}
		if p.Telemetry != nil {
			commits = max(commits, p.Telemetry.Database["xact_commit"])
		}
	}
	if commits <= 0 {
		t.Error("no live result had the server's commits")
	}
	last := got[len(got)-1]
	if c := r.Op(result.CycleOp); c == nil || c.Count < last.Op(result.CycleOp).Count {
		t.Errorf("the final result counts fewer cycles than the run so far: %+v, %+v", c, last.Op(result.CycleOp))
	}
}
