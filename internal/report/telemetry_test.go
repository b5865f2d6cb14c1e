package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// telemetryResult is fixedResult with telemetry of a PostgreSQL run
// through a pooler.
func telemetryResult() *result.Result {
	r := fixedResult()
	r.Ops[0].ServerMS = 3.5   // add
	r.Ops[1].ServerMS = 12.25 // process
	r.Pooler = &result.Pooler{Name: "PgBouncer 1.18.0", Detail: "transaction pooling, 20 server connections",
		Stats: map[string]int64{"total_xact_count": 14375, "total_query_count": 43125, "total_query_time": 1918477, "total_wait_time": 120000}}
	r.Telemetry = &result.Telemetry{
		Database: map[string]int64{
			"xact_commit": 14375, "xact_rollback": 38, "blks_hit": 998000, "blks_read": 2000,
			"tup_inserted": 96000, "tup_updated": 47900, "tup_deleted": 30123, "tup_fetched": 812345, "tup_returned": 1234567,
			"deadlocks": 1, "temp_files": 2, "temp_bytes": 3 << 20, "conflicts": 0, "wal_bytes": 1536 << 20,
		},
		Waits: &result.Waits{
			SampleEveryMS: 100, Samples: 600, ActiveSamples: 1200,
			Classes:         []result.WaitShare{{Name: "CPU", Samples: 600, Share: 0.5}, {Name: "Lock", Samples: 360, Share: 0.3}, {Name: "IO", Samples: 240, Share: 0.2}},
			Events:          []result.WaitShare{{Name: "CPU", Samples: 600, Share: 0.5}, {Name: "Lock:transactionid", Samples: 360, Share: 0.3}, {Name: "IO:WALSync", Samples: 240, Share: 0.2}},
			LockWaitSamples: 360, MaxLockWaiters: 4,
		},
		Pooler: map[string]int64{"total_xact_count": 14375, "total_query_count": 43125, "total_wait_time": 120000},
		Series: []result.Sample{
			{ElapsedS: 30, ClientCPU: 0.05, ClientRSSMB: 36, MachineCPU: 0.6},
			{ElapsedS: 60, ClientCPU: 0.07, ClientRSSMB: 38, MachineCPU: 0.8},
		},
		Notes: []string{"no statement times for archive: example note"},
	}
	return r
}

func TestSummaryTelemetryGolden(t *testing.T) {
	plain.Golden(t, "summary_telemetry.golden", summaryOf(telemetryResult()))
}

// TestTelemetryParts: what the summary must say, whatever the golden
// holds; and nothing without telemetry.
func TestTelemetryParts(t *testing.T) {
	plain.Contains(t, "summary", summaryOf(telemetryResult()),
		"server(ms)", "add 3.50 of", "commits 14,375 = 14,375 in the window, rollbacks 38", "inserted 96,000",
		"buffer hit ratio 99.80%", "WAL 1.5 GB", "CPU 50.0%, Lock 30.0%, IO 20.0%",
		"Lock:transactionid 30.0%", "at most 4 waiting at once",
		"0.06 cores on average", "70% busy on average", "note       no statement times",
	)
	out := summaryOf(fixedResult())
	for _, no := range []string{"server(ms)", "waits", "database   commits"} {
		if strings.Contains(out, no) {
			t.Errorf("summary without telemetry shows %q", no)
		}
	}
}

// TestPoolerOneLine: the pooler's counters are said once, in one line,
// its times with units (PgBouncer counts microseconds).
func TestPoolerOneLine(t *testing.T) {
	var lines []string
	for _, l := range strings.Split(summaryOf(telemetryResult()), "\n") {
		if strings.HasPrefix(l, "pooler") {
			lines = append(lines, l)
		}
	}
	want := "pooler     PgBouncer 1.18.0 (transaction pooling, 20 server connections): 14,375 transactions, 43,125 queries, 1.92 s in queries, clients waited 120.00 ms in all"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("pooler lines %q, want one: %q", lines, want)
	}
	// Without the run's pooler result, the telemetry's counters stand in, with units.
	r := telemetryResult()
	r.Pooler = nil
	if out := summaryOf(r); !strings.Contains(out, "pooler     SHOW STATS over the window: query_count 43,125, wait_time 120.00 ms, xact_count 14,375") {
		t.Errorf("no telemetry pooler line with units:\n%s", out)
	}
}

func TestBytesText(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 3 << 20: "3.0 MB", 5 << 40: "5120.0 GB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCommitsAddUp: the database line shows how the clients'
// transactions make up the server's commits (the server's counters hold
// those completed after the window, which the table's counts leave out),
// and both numbers when they differ.
func TestCommitsAddUp(t *testing.T) {
	for _, tc := range []struct {
		commits, after, before int64
		want                   string
	}{
		{14375 + 30, 30, 0, "commits 14,405 = 14,375 in the window + 30 completed after it, rollbacks 38"},
		{14375 + 35, 30, 5, "commits 14,410 = 14,375 in the window + 30 completed after it + 5 begun in the warm-up, rollbacks"},
		{14375 * 2, 0, 0, "commits 28,750 for the clients' 14,375 transactions (14,375 in the window; +100.0%), rollbacks"},
	} {
		r := telemetryResult()
		r.Telemetry.Database["xact_commit"] = tc.commits
		r.Ops[0].AfterWindow, r.Ops[1].BeforeWindow = tc.after, tc.before
		var b bytes.Buffer
		Telemetry(&b, r)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("want %q in:\n%s", tc.want, b.String())
		}
	}
}

// TestServerShareAboveLatency: a server time above the op's mean latency
// says why (the server's mean is over failed and retried executions too).
func TestServerShareAboveLatency(t *testing.T) {
	r := telemetryResult()
	r.Ops[0].ServerMS = 2 * r.Ops[0].Mean
	r.Ops[0].Retries = 7
	var b bytes.Buffer
	Telemetry(&b, r)
	if want := "(200%, above its latency: the server's mean includes"; !strings.Contains(b.String(), want) {
		t.Errorf("want %q in:\n%s", want, b.String())
	}
}
