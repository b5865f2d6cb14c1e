package job

import (
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestTrainEventsAllocation: on PostgreSQL the client allocates at most
// 2.5 times the payload bytes it moves per transaction, for every variant
// (it was 4-7 times before issue 18, and 3 times for manual while its
// insert sent small arrays after the payloads). The goal, twice, is
// bench/client-cost.sh's to measure. Fixed work (240 cycles, 720
// transactions), so that the run's fixed allocations (connecting, the
// first statements, the window's edges) are spread over the same
// transactions however busy the machine (a 3 s window after a warm-up
// completed too few of them under load: 98 KB per transaction against
// 89.5). Batches of 100 events of at least 1,100 bytes each (1,165 on
// average): add sends them, and with a TEXT payload process also reads
// and writes them back. Without telemetry, whose cost per second a run
// cannot spread, and with a progress tick every 100 ms: a tick allocated
// about 1 MB per op until issue 18 (about 390 KB per transaction here),
// now less than 1 KB.
func TestTrainEventsAllocation(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	const batch, minEventBytes = 100, 1100
	for _, c := range []struct {
		variant string
		passes  int // payloads through the client per cycle
	}{{"jsonb", 1}, {"manual", 1}, {"text", 3}} {
		t.Run(c.variant, func(t *testing.T) {
			s := spec(t, dbURL, runner.Config{Clients: 4, Iterations: 240, Progress: 100 * time.Millisecond},
				"--variant", c.variant, "--min-batch", "100", "--max-batch", "100", "--rows", "2000")
			s.Telemetry.Off = true // the workload's path alone
			r := run(t, s)
			if txns, _ := r.Transactions(); txns == 0 || r.Invariants == nil || !r.Invariants.OK {
				t.Fatalf("%d transactions, invariants %+v", txns, r.Invariants)
			}
			payloadKB := float64(batch*minEventBytes*c.passes) / 3 / 1024
			got := r.Client.AllocPerTxnKB
			t.Logf("allocated %.1f KB per transaction for %.1f KB of payload", got, payloadKB)
			if got <= 0 || got > 2.5*payloadKB {
				t.Errorf("allocated %.1f KB per transaction; want at most %.1f, 2.5 times the %.1f KB of payload", got, 2.5*payloadKB, payloadKB)
			}
		})
	}
}
