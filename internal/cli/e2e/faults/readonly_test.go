package faults

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestReadOnlyTransactionsOnTheStandby: with --read-from replicas, tpcc's
// Order-Status and Stock-Level and the workflow's awaits are committed on
// the standby, by its own counter (pg_stat_database.xact_commit): at least
// as many as the run completed. For tpcc, whose read-only transactions are
// one transaction per op, at most that many and txnbench's own readings
// (the count before the run, and at most 20 after it until two agree,
// job.standbyXacts), so no writing transaction went there (it would fail
// on a standby anyway). Without the workloads' declarations --read-from refuses them
// (exit 2: they declare no read-only transaction).
func TestReadOnlyTransactionsOnTheStandby(t *testing.T) {
	const readings = 1 + 20 + 4 // txnbench's own, and a few for its sessions' logins
	t.Parallel()
	testutil.NeedPostgres(t)
	for _, c := range []struct {
		name  string
		args  []string
		ops   []string
		exact bool // one transaction per op: the standby's count is bounded above too
	}{
		{"tpcc", []string{"tpcc", "--warehouses", "1", "--items", "1000", "--customers-per-district", "30", "--wait=false",
			"--mix", "10,10,40,0,40", "--clients", "2", "--iterations", "200"}, []string{"order-status", "stock-level"}, true},
		{"workflow", []string{"workflow", "--clients", "2", "--signal-workers", "2", "--iterations", "20"}, []string{"await"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), strings.ReplaceAll(t.Name(), "/", "-")+".json")
			args := append(append([]string{"run"}, c.args...), "--db", "temp-postgres", "--replicas", "1", "--read-from", "replicas",
				"--telemetry", "off", "--json", out)
			code, stdout, stderr := clitest.Run(args...)
			if code != exitcode.OK {
				t.Fatalf("exit %d:\n%s\n%s", code, stdout, stderr)
			}
			r, err := result.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			var ro int64
			for _, name := range c.ops {
				o := r.Op(name)
				if o == nil || o.Count == 0 {
					t.Fatalf("no %s completed: %+v\n%s", name, o, stdout)
				}
				ro += o.Count + o.AfterWindow
			}
			rr := r.ReadRouting
			if rr == nil || len(rr.Standbys) != 1 {
				t.Fatalf("read routing %+v:\n%s", rr, stdout)
			}
			got := rr.Standbys[0].Commits
			t.Logf("standby1 committed %d transactions for %d read-only ops %v", got, ro, c.ops)
			if got < ro || c.exact && got > ro+readings {
				t.Errorf("standby1 committed %d transactions for the %d read-only ops %v sent to it:\n%s", got, ro, c.ops, stdout)
			}
			if !strings.Contains(stdout, rr.ServedLine()+"\n") || !strings.Contains(stdout, "invariants: OK") {
				t.Errorf("footer without %q or invariants OK:\n%s", rr.ServedLine(), stdout)
			}
		})
	}
}
