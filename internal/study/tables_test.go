package study_test

import (
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// workflowRun is a run shaped like the workflow workload's: a transaction
// op and a phase of the same name, a phase of its own, database counters
// and waits. Latencies are ms each, scaled by k.
func workflowRun(clients int, k float64, commits int64, waits map[string]int64) *result.Result {
	h := func(ms ...float64) *metrics.Hist {
		x := metrics.NewHist()
		for _, v := range ms {
			x.Record(time.Duration(v * k * float64(time.Millisecond)))
		}
		return x
	}
	op := func(name string, kind result.Kind, x *metrics.Hist, errs int64) result.Op {
		o := result.Op{Name: name, Kind: kind, Summary: x.Summary(), Hist: x}
		if errs > 0 {
			o.Errors = map[string]int64{"serialization": errs}
		}
		return o
	}
	w := &result.Waits{SampleEveryMS: 100}
	for ev, n := range waits {
		w.Events = append(w.Events, result.WaitShare{Name: ev, Samples: n})
		w.ActiveSamples += n
	}
	r := &result.Result{MeasuredS: 2, Config: result.Config{Clients: clients}, Invariants: &result.Check{OK: true},
		Server: result.Server{Dialect: "PostgreSQL", Version: "15.18"},
		Ops: []result.Op{
			op("start", result.KindTxn, h(4, 5, 6, 7, 30), 1),
			op("signal_publish", result.KindTxn, h(3, 4, 5, 6, 20), 0),
			op("workflow", result.KindPhase, h(8, 9, 10, 11, 60), 0),
			op("signal_to_completion", result.KindPhase, h(40, 50, 60, 70, 300), 0),
		},
		Telemetry: &result.Telemetry{
			Database: map[string]int64{"xact_commit": commits, "xact_rollback": 2, "blks_hit": 8 * commits, "blks_read": 3, "tup_inserted": 3 * commits / 4, "tup_updated": commits / 2, "tup_deleted": commits / 4, "wal_bytes": 99},
			Waits:    w,
		},
	}
	r.Ops[0].AfterWindow = commits - 10 // the 10 transactions in the window and those after it make the commits
	return r
}

// TestWriteTablesGolden: study.md has the per-cell summary of all
// transactions, the phase table, the database counters and top wait, and
// p90 and max in every op's table; the phase table shows the
// transactions of the cycle, then its phases.
func TestWriteTablesGolden(t *testing.T) {
	s := &study.Summary{Format: study.Format, Workload: "workflow", Args: []string{"txnbench", "study", "workflow", "--vary", "clients=1,4"},
		Vary: []study.Vary{{Key: "clients", Values: []string{"1", "4"}}}, Repeat: 2}
	for i, n := range []int{1, 4} {
		c := study.Cell{Settings: []study.Setting{{"clients", []string{"1", "4"}[i]}}}
		k := float64(1 + i)
		s.Cells = append(s.Cells, study.Summarise(c, []*result.Result{
			workflowRun(n, k, 250*int64(n), map[string]int64{"Client:ClientRead": 30, "CPU": 10}),
			workflowRun(n, k*1.1, 260*int64(n), map[string]int64{"Client:ClientRead": 20, "Lock:transactionid": 15}),
		}, nil))
	}
	c := s.Cells[1]
	if c.Txn.Count != 10 || c.Txn.Errors != 1 || c.Clients != 4 || c.DurationS != 2 || c.Database["xact_commit"] != 1020 || c.TopWait != "Client:ClientRead" {
		t.Errorf("cell %+v", c)
	}
	if phase, txn := c.OpOf("workflow", result.KindPhase), c.OpOf("start", result.KindTxn); phase == nil || txn == nil || phase.Max < 1.5*txn.Max {
		t.Errorf("the workflow phase and the start transaction: %+v", c.Ops)
	}
	plain.Golden(t, "tables.md.golden", studyMD(s))
}
