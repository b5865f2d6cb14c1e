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
// bench/client-cost.sh's to measure. Per transaction is the marginal
// figure between two runs of fixed work on one database, 10 and 70 cycles
// (30 and 210 transactions), the second on the data the first loaded:
// the difference leaves out what a run
// allocates whatever its length (connecting, the first statements, the
// histograms, the window's edges: about 8 MB at 4 clients, which a single
// run must spread over 720 transactions to stay near its marginal figure,
// and the server then spends 25 CPU-seconds on the jsonb variant's
// inverted index). What is per second stays in it: the longer run ticks
// longer. Batches of 100 events of at least 1,100 bytes each (1,165 on
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
			// allocated is what a run of n cycles allocated, in KB, and
			// its transactions.
			allocated := func(n int64, fresh bool) (kb float64, txns int64) {
				s := spec(t, dbURL, runner.Config{Clients: 4, Iterations: n, Progress: 100 * time.Millisecond},
					"--variant", c.variant, "--min-batch", "100", "--max-batch", "100", "--rows", "2000")
				s.Telemetry.Off = true // the workload's path alone
				s.Fresh = fresh
				r := run(t, s)
				txns, _ = r.Transactions()
				if txns == 0 || r.Invariants == nil || !r.Invariants.OK {
					t.Fatalf("%d transactions, invariants %+v", txns, r.Invariants)
				}
				return r.Client.AllocPerTxnKB * float64(txns), txns
			}
			shortKB, shortTxns := allocated(10, true)
			longKB, longTxns := allocated(70, false) // on the data left, not loaded again
			payloadKB := float64(batch*minEventBytes*c.passes) / 3 / 1024
			got := (longKB - shortKB) / float64(longTxns-shortTxns)
			t.Logf("allocated %.1f KB per transaction for %.1f KB of payload (%.0f KB in %d transactions, %.0f KB in %d)",
				got, payloadKB, shortKB, shortTxns, longKB, longTxns)
			if got <= 0 || got > 2.5*payloadKB {
				t.Errorf("allocated %.1f KB per transaction; want at most %.1f, 2.5 times the %.1f KB of payload", got, 2.5*payloadKB, payloadKB)
			}
		})
	}
}
