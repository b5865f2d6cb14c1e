package engines

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// tpccSmall is a TPC-C of two warehouses at a test's scale, run flat out.
var tpccSmall = []string{"--warehouses", "2", "--items", "1000", "--customers-per-district", "30", "--wait=false"}

// runTPCC runs tpcc with args through the command and checks what every
// TPC-C run shows: each condition's line, the figures and invariants OK.
func runTPCC(t *testing.T, args ...string) *result.Result {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	args = append(append([]string{"run", "tpcc", "--json", out}, tpccSmall...), args...)
	stdout, _ := clitest.MustRun(t, args...)
	plain.Contains(t, "the output", stdout,
		"3.3.2.1 W_YTD = sum(D_YTD)", "3.3.2.12 C_BALANCE + C_YTD_PAYMENT", "payments = YTD growth",
		"tpmC ", "p90 limits new-order", "invariants: OK",
	)
	r := clitest.LoadResult(t, out)
	if len(r.Figures) != 2 || r.Data["order_line"] == 0 {
		t.Errorf("figures %q, data %v", r.Figures, r.Data)
	}
	return r
}

// TestTPCCSQLite runs TPC-C on SQLite through the binary; the HTML report
// has the figures too.
func TestTPCCSQLite(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "r.html")
	r := runTPCC(t, "--db", "sqlite:"+filepath.Join(dir, "tpcc.db"), "--clients", "4", "--iterations", "400", "--html", html)
	if o := r.Op("new-order"); o == nil || o.Count == 0 {
		t.Errorf("no New-Order ran: %+v", r.Ops)
	}
	page := clitest.Read(t, html)
	if !strings.Contains(string(page), "New-Orders per minute") {
		t.Error("the HTML report lacks the tpmC line")
	}
}

// TestTPCCPostgres runs TPC-C on PostgreSQL (a database of its own on the
// package's throwaway cluster) with one terminal per district of both
// warehouses, ten transactions each.
func TestTPCCPostgres(t *testing.T) {
	t.Parallel()
	runTPCC(t, "--db", testutil.SharedPostgres(t), "--clients", "20", "--iterations", "200")
}

// killWindow is the --duration of a run whose server is killed at 2 s,
// after leaving it after: at least after, more on a loaded machine (at load
// 24 on 2 cores MariaDB's restart and reconnects took all of a 3 s window,
// and a run with no Order-Status exits 1).
func killWindow(after time.Duration) string {
	return (2*time.Second + plain.Slack(after)).Round(100 * time.Millisecond).String()
}

// TestTPCCKillServer kills the server mid-run: sessions break, commits may
// be left of unknown outcome, and every consistency condition still holds,
// batched and one statement per step (procedures:
// TestTPCCProceduresKillServer). The window is paced (--rate): the sessions
// are there when the server dies either way. It leaves 5 s after the kill:
// with 4 (the machine at load 40) no Order-Status, 4% of the mix, got
// through while the server restarted, and the run exited non-zero for an
// op that never succeeded; the time after the kill grows with the load per
// core (killWindow).
func TestTPCCKillServer(t *testing.T) {
	t.Parallel()
	for _, impl := range []string{"batched", "statements"} {
		t.Run(impl, func(t *testing.T) {
			t.Parallel()
			r := runTPCC(t, "--db", "temp-postgres", "--implementation", impl, "--clients", "20", "--duration", killWindow(5*time.Second), "--rate", "40", "--fault", "2s:kill-server:200ms")
			if len(r.Faults) != 1 || !r.Faults[0].Injected || r.Settings["implementation"] != impl {
				t.Errorf("faults %+v, settings %v", r.Faults, r.Settings)
			}
		})
	}
}

// TestTPCCMariaDBKillServer: each implementation on a throwaway MariaDB
// keeps every condition with the server killed mid-run (its restart and
// the clients' reconnects inside the window).
func TestTPCCMariaDBKillServer(t *testing.T) {
	t.Parallel()
	testutil.NeedMariaDB(t)
	for _, impl := range []string{"batched", "statements", "procedures"} {
		r := runTPCC(t, "--db", "temp-mariadb", "--mariadb-conf", "innodb_buffer_pool_size=32M", "--warehouses", "1", "--implementation", impl,
			"--clients", "4", "--telemetry", "off", "--duration", killWindow(3*time.Second), "--rate", "40", "--fault", "2s:kill-server:200ms")
		if len(r.Faults) != 1 || !r.Faults[0].Injected || r.Settings["implementation"] != impl {
			t.Errorf("%s: faults %+v, settings %v", impl, r.Faults, r.Settings)
		}
	}
}

// TestTPCCProceduresKillServer: --implementation procedures on PostgreSQL
// (one PL/pgSQL function call per transaction, made by the run's init)
// keeps every condition with the server killed mid-run, and is named in
// the result.
func TestTPCCProceduresKillServer(t *testing.T) {
	t.Parallel()
	r := runTPCC(t, "--db", "temp-postgres", "--warehouses", "1", "--implementation", "procedures", "--clients", "10", "--duration", killWindow(3*time.Second), "--rate", "40",
		"--fault", "2s:kill-server:200ms")
	if len(r.Faults) != 1 || !r.Faults[0].Injected {
		t.Errorf("faults %+v", r.Faults)
	}
	if r.Settings["implementation"] != "procedures" || r.Op("new-order").Count == 0 {
		t.Errorf("settings %v, new-order %+v: want procedures, New-Orders run", r.Settings, r.Op("new-order"))
	}
	found := false
	for _, n := range r.Notes {
		found = found || strings.Contains(n, "each transaction is one call of a PL/pgSQL function")
	}
	if !found {
		t.Errorf("no note on the procedures: %q", r.Notes)
	}
}

// TestTPCCPlantedViolationExits3: a change to loaded data that a run
// cannot undo (a warehouse's w_ytd one higher than its districts' d_ytd
// and its history, a customer's c_ytd_payment one higher than what was
// delivered to it) makes the next run's check fail on exactly those
// conditions (3.3.2.1, 8 and 12), exit 3; the money's line, which compares
// growth within the run, still holds.
// Before the plant the same data passes.
func TestTPCCPlantedViolationExits3(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	runTPCC(t, "--db", db, "--clients", "2", "--iterations", "40")
	ctx := context.Background()
	tg, err := target.OpenURL(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1",
		"UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 2 AND c_d_id = 3 AND c_id = 4",
	} {
		if n, err := c.Exec(ctx, q); err != nil || n != 1 {
			t.Fatalf("%s: %d rows, %v", q, n, err)
		}
	}
	c.Close(ctx)
	tg.Close()
	args := append([]string{"run", "tpcc", "--db", db, "--clients", "2", "--iterations", "40"}, tpccSmall...)
	code, stdout, stderr := clitest.Run(args...)
	if code != exitcode.Invariants {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitcode.Invariants, stdout, stderr)
	}
	failed := map[string]bool{}
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "FAIL" {
			failed[f[1]] = true
		}
	}
	if !failed["3.3.2.1"] || !failed["3.3.2.8"] || !failed["3.3.2.12"] || len(failed) != 3 {
		t.Errorf("failed conditions %v, want 3.3.2.1, 3.3.2.8 and 3.3.2.12 alone:\n%s", failed, stdout)
	}
}

// TestTPCCTerminals: without --clients a run has ten terminals per active
// warehouse; --clients still decides when given.
func TestTPCCTerminals(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	if r := runTPCC(t, "--db", db, "--active-warehouses", "1", "--iterations", "100"); r.Config.Clients != 10 {
		t.Errorf("%d clients on one active warehouse, want 10", r.Config.Clients)
	}
	if r := runTPCC(t, "--db", db, "--iterations", "100"); r.Config.Clients != 20 {
		t.Errorf("%d clients on two warehouses, want 20", r.Config.Clients)
	}
	if r := runTPCC(t, "--db", db, "--clients", "3", "--iterations", "100"); r.Config.Clients != 3 {
		t.Errorf("%d clients with --clients 3", r.Config.Clients)
	}
}

// TestTPCCPgBouncer runs TPC-C through a throwaway PgBouncer in
// transaction mode (1.18: no protocol-level prepared statements), ten
// transactions a terminal.
func TestTPCCPgBouncer(t *testing.T) {
	t.Parallel()
	testutil.NeedPgBouncer(t)
	r := runTPCC(t, "--db", "temp-postgres", "--via", "pgbouncer", "--clients", "20", "--iterations", "200")
	if r.Pooler == nil {
		t.Error("no pooler in the result")
	}
}

// TestTPCCBadInput: bad TPC-C flags are usage errors naming the fix.
func TestTPCCBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--mix", "45,43"}, "give five weights"},
		{[]string{"--warehouses", "2", "--active-warehouses", "3"}, "--active-warehouses 3 is more than --warehouses 2"},
		{[]string{"--check", "all"}, `unknown --check "all"`},
		{[]string{"--implementation", "functions"}, `unknown --implementation "functions": choose batched, statements or procedures`},
		{[]string{"--implementation", "procedures"}, "--implementation procedures: SQLite has no stored procedures: choose batched or statements, or give --db a PostgreSQL or MariaDB"},
	} {
		args := append([]string{"run", "tpcc", "--db", "sqlite:" + filepath.Join(t.TempDir(), "x.db")}, tt.args...)
		code, _, stderr := clitest.Run(args...)
		if code != exitcode.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, %q; want %d saying %q", tt.args, code, stderr, exitcode.Usage, tt.want)
		}
	}
}

// TestTPCCSharded: two processes split one TPC-C run's terminals; shard 0
// alone loads, the last to finish checks every condition and the money
// against both shards' books, and the merged report is OK.
func TestTPCCSharded(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	dir := t.TempDir()
	args := append([]string{"tpcc", "--clients", "20", "--iterations", "200", "--seed", "5"}, tpccSmall...)
	rs, stderr := clitest.RunShards(t, 2, dbURL, dir, args...)
	checked := 0
	for i, r := range rs {
		if loaded := strings.Contains(stderr[i], "loaded 2 of 2 warehouses"); loaded != (i == 0) {
			t.Errorf("shard %d loaded the data: %v\n%s", i, loaded, stderr[i])
		}
		if r.Invariants != nil && len(r.Invariants.Items) > 0 {
			checked++
			if !r.Invariants.OK {
				t.Errorf("shard %d's check: %+v", i, r.Invariants)
			}
		}
	}
	if checked == 0 {
		t.Error("no shard checked the whole run")
	}
	code, stdout, errOut := clitest.Run("report", filepath.Join(dir, "shard-0.json"), filepath.Join(dir, "shard-1.json"))
	if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") || !strings.Contains(stdout, "payments = YTD growth") {
		t.Errorf("merged report: exit %d %s\n%s", code, errOut, stdout)
	}
}

// TestTPCCStudy: TPC-C in a study (issue 28: in studies, suites and
// shards): both cells load once into their database, run, and keep every
// condition.
func TestTPCCStudy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "study")
	args := append([]string{"study", "tpcc", "--db", "sqlite:" + filepath.Join(dir, "tpcc.db"), "--iterations", "40", "--out", out,
		"--vary", "clients=1,2"}, tpccSmall...)
	clitest.MustRun(t, args...)
	md := clitest.Read(t, filepath.Join(out, "study.md"))
	plain.Contains(t, "study.md", string(md), "invariants: OK in every run", "## new-order", "| clients=2 ")
}
