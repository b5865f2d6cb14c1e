package engines

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
	"github.com/txnbench/txnbench/internal/workload"
)

// coMaria is a connect-overhead run on tiny data; each use gives its
// amount of work (--iterations, or --duration and a --rate).
var coMaria = []string{"run", "connect-overhead", "--rows", "300", "--clients", "2", "--warmup", "0s", "--progress", "1s", "--telemetry", "off"}

// teMaria is a train-events run on small data, cycling fast; each use
// gives its amount of work.
var teMaria = []string{"run", "train-events", "--rows", "500", "--clients", "3", "--warmup", "0s",
	"--delay", "5ms", "--think-min", "1ms", "--think-max", "5ms", "--progress", "1s", "--telemetry", "off"}

// TestMariaDB runs the workloads adapted to MariaDB (connect-overhead,
// workflow, train-events) through the binary on one throwaway MariaDB given by its
// mysql:// URL (invariants OK, and a planted loss caught), then a run on
// --db temp-mariadb with every server and network fault injected into it.
func TestMariaDB(t *testing.T) {
	m := testutil.MariaDB(t)
	ctx := t.Context() // its subtests run for minutes on a loaded machine: go test's -timeout bounds them
	url := m.URL()

	t.Run("connect-overhead", func(t *testing.T) {
		for _, q := range [][]string{{"--query", "point"}, {"--query", "complex", "--conn", "per-txn"}} {
			code, stdout, stderr := clitest.Run(append(append(coMaria, "--db", url, "--iterations", "40"), q...)...)
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") || !strings.Contains(stdout, "MariaDB "+m.Version()) {
				t.Fatalf("%v: exit %d: %s\n%s", q, code, stderr, stdout)
			}
			if strings.Contains(stdout+stderr, m.Password()) {
				t.Errorf("the output shows the password")
			}
		}
	})

	t.Run("rw-register", func(t *testing.T) { rwRegisterLostUpdates(t, url) })
	t.Run("list-append runs sharing a table", func(t *testing.T) { twoListAppendRuns(t, url) })

	t.Run("workflow", func(t *testing.T) {
		for _, sc := range []string{"immediate-burst", "external-resume"} {
			code, stdout, stderr := clitest.Run("run", "workflow", "--db", url, "--scenario", sc, "--clients", "2", "--warmup", "0s", "--iterations", "10",
				"--progress", "1s", "--telemetry", "off")
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("%s: exit %d: %s\n%s", sc, code, stderr, stdout)
			}
			if !strings.Contains(stdout, "signal workers poll every") || !strings.Contains(stdout, "MariaDB has no LISTEN/NOTIFY") {
				t.Errorf("%s: no note on polling:\n%s", sc, stdout)
			}
		}
	})

	t.Run("train-events", func(t *testing.T) {
		for _, v := range []string{"jsonb", "manual", "text"} {
			code, stdout, stderr := clitest.Run(append(teMaria, "--db", url, "--variant", v, "--iterations", "30")...)
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("%s: exit %d: %s\n%s", v, code, stderr, stdout)
			}
			if !strings.Contains(stdout, "JSON_TABLE expands") {
				t.Errorf("%s: no note on how batches travel:\n%s", v, stdout)
			}
		}
	})

	t.Run("telemetry", func(t *testing.T) {
		// The server's status variables and performance_schema's digests
		// give the database counters and statement times.
		out := filepath.Join(t.TempDir(), "te.json")
		stdout, _ := clitest.MustRun(t, append(append([]string{}, teMaria...), "--db", url, "--iterations", "30", "--json", out, "--telemetry", "on")...)
		r := clitest.LoadResult(t, out)
		tel := r.Telemetry
		if tel == nil || tel.Database["xact_commit"] <= 0 || tel.Database["tup_inserted"] <= 0 || tel.Database["blks_hit"] <= 0 || len(tel.Statements) == 0 {
			t.Fatalf("no database counters or statements: %+v", tel)
		}
		if !strings.Contains(stdout, "database   commits") || !strings.Contains(stdout, "server's status variables") {
			t.Errorf("no database section or note on what the counters are:\n%s", stdout)
		}
		for _, st := range tel.Statements { // the telemetry's own reads are not the clients'
			if q := strings.ToUpper(st.Query); strings.Contains(q, "GLOBAL STATUS") || strings.Contains(q, "SUMMARY_BY_DIGEST") {
				t.Errorf("the telemetry's own statement among the clients': %q", st.Query)
			}
		}
	})

	t.Run("train-events planted deletion", func(t *testing.T) {
		c := testutil.Session(t, testutil.Open(t, url))
		var before int64 // the jsonb run above archived some: wait for this run's
		if err := target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb_archive", nil, &before); err != nil {
			t.Fatal(err)
		}
		deleted := make(chan bool, 1)
		go func() { // once the run has archived an event, one archived event is lost
			ok := testutil.Poll(60*time.Second, 50*time.Millisecond, func() bool {
				var n int64
				return target.QueryRow(ctx, c, "SELECT count(*) FROM events_jsonb_archive", nil, &n) == nil && n > before
			}) && testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool {
				n, err := c.Exec(ctx, "DELETE FROM events_jsonb_archive ORDER BY archived_at DESC LIMIT 1")
				return err == nil && n == 1
			})
			deleted <- ok
		}()
		// The window leaves time for the deletion, the rate keeps its work small.
		code, stdout, stderr := clitest.Run(append(teMaria, "--db", url, "--duration", "6s", "--rate", "20")...)
		if !<-deleted {
			t.Fatal("no archived event to delete while the run ran")
		}
		if code != exitcode.Invariants || !strings.Contains(stdout, "FAIL no event lost or invented") {
			t.Errorf("with an archived event deleted: exit %d, want %d: %s\n%s", code, exitcode.Invariants, stderr, stdout)
		}
	})

	t.Run("pgbench scripts", func(t *testing.T) {
		// Each builtin loads its tables (multi-row INSERTs: no COPY) and
		// runs; tpcb-like's END is sent as COMMIT, in every query mode.
		for _, b := range [][]string{{"-b", "tpcb-like"}, {"-b", "tpcb-like", "-M", "prepared"}, {"-b", "simple-update", "-M", "extended"},
			{"-b", "select-only"}, {"-b", "ycsb-a", "--record-count", "2000"}, {"-b", "oltp-read-write", "--table-size", "2000"}} {
			out := filepath.Join(t.TempDir(), "r.json")
			code, stdout, stderr := clitest.Run(append([]string{"run", "script", "--db", url, "--clients", "2", "--warmup", "0s", "--iterations", "30",
				"--progress", "1s", "--telemetry", "off", "--json", out}, b...)...)
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("%v: exit %d: %s\n%s", b, code, stderr, stdout)
			}
			r := clitest.LoadResult(t, out)
			for _, o := range r.Ops {
				if len(o.Errors) > 0 {
					t.Errorf("%v: %s failed: %v", b, o.Name, o.Errors)
				}
			}
		}
	})

	t.Run("tpcc", func(t *testing.T) {
		// Loaded as multi-row INSERTs, DATETIME literals without a zone;
		// the updates that return rows are read after. Each implementation
		// keeps every condition and is named in the result; procedures
		// are made by the run's init and say so.
		for _, impl := range []string{"batched", "statements", "procedures"} {
			r := runTPCC(t, "--db", url, "--clients", "4", "--iterations", "300", "--telemetry", "off", "--implementation", impl)
			note := "no UPDATE ... RETURNING"
			if impl == "procedures" {
				note = "each transaction is one CALL of a stored procedure (txnbench_tpcc_new_order and the others)"
			}
			found := false
			for _, n := range r.Notes {
				found = found || strings.Contains(n, note)
			}
			if !found {
				t.Errorf("%s: no note %q: %q", impl, note, r.Notes)
			}
			if r.Settings["implementation"] != impl {
				t.Errorf("settings %v, want implementation %s", r.Settings, impl)
			}
		}
	})

	t.Run("tpcc statements per new-order", func(t *testing.T) {
		// The server's own count of the statements it was sent
		// (Questions), over 200 New-Orders on the data loaded above: the
		// run's start and check add a few dozen. Batched sends about 11
		// a New-Order whatever its lines, one per step over 40, procedures
		// one CALL (the statements a procedure runs are not Questions).
		_, c, done := testutil.Conn(t, url)
		defer done()
		questions := func() int64 {
			var name string
			var n int64
			if err := target.QueryRow(ctx, c, "SHOW GLOBAL STATUS LIKE 'Questions'", nil, &name, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		const n = 200
		for _, tt := range []struct {
			impl     string
			min, max float64
		}{{"batched", 8, 14}, {"statements", 30, 60}, {"procedures", 1, 1.5}} {
			before := questions()
			code, stdout, stderr := clitest.Run(append([]string{"run", "tpcc", "--db", url, "--clients", "1", "--iterations", strconv.Itoa(n), "--mix", "1,0,0,0,0",
				"--check", "quick", "--telemetry", "off", "--implementation", tt.impl}, tpccSmall...)...)
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("%s: exit %d: %s\n%s", tt.impl, code, stderr, stdout)
			}
			if per := float64(questions()-before) / n; per < tt.min || per > tt.max {
				t.Errorf("%s: %.1f statements per New-Order, want %.0f to %.0f", tt.impl, per, tt.min, tt.max)
			} else {
				t.Logf("%s: %.1f statements per New-Order", tt.impl, per)
			}
		}
	})

	t.Run("read-only checks", func(t *testing.T) { clitest.ReadOnlyChecks(t, url) })

	t.Run("foreign tables", func(t *testing.T) {
		refusesForeignTables(t, mariaDBs(url), false)
	})

	t.Run("planted deletion", func(t *testing.T) {
		_, c, done := testutil.Conn(t, url)
		defer done()
		if n, err := c.Exec(ctx, "DELETE FROM co_order_items ORDER BY id LIMIT 1"); err != nil || n != 1 {
			t.Fatalf("deleting an order item: %d, %v", n, err)
		}
		code, stdout, stderr := clitest.Run(append(coMaria, "--db", url, "--iterations", "10")...)
		if code != exitcode.Invariants || !strings.Contains(stdout, "FAIL order totals match their items") {
			t.Errorf("after a deleted order item: exit %d, want %d: %s\n%s", code, exitcode.Invariants, stderr, stdout)
		}
	})

	t.Run("temp-mariadb faults", func(t *testing.T) {
		out := filepath.Join(testutil.Artifacts(t), "faults.json")
		// Half a second between faults, more on a loaded machine (plain.Slack:
		// at load 24 on 2 cores the clients had not reconnected after
		// terminate-backends by the next fault).
		step := plain.Slack(500 * time.Millisecond)
		at := func(steps int, fault string) string {
			return (time.Second + time.Duration(steps)*step).Round(time.Millisecond).String() + ":" + fault
		}
		faults := []string{at(0, "terminate-backends"), at(1, "reset"), at(2, "latency:20ms/300ms"), at(3, "blackhole:300ms"),
			at(4, "hang-server:300ms"), at(6, "restart-server"), at(8, "kill-server:200ms")}
		// After the last fault the window holds the server's restart (its
		// start is waited for, then a client reconnects) plus the longest
		// reconnect backoff twice over: clients failing since the kill may be
		// asleep for MaxReconnectBackoff when the server is back. 8 s left
		// 1.3 s, and a loaded CI machine saw no op succeed after the kill.
		window := time.Second + 8*step + 2*workload.MaxReconnectBackoff + plain.Slack(3*time.Second)
		args := append(append([]string{}, coMaria...), "--db", "temp-mariadb", "--mariadb-conf", "innodb_buffer_pool_size=32M",
			"--duration", window.String(), "--rate", "40", "--json", out)
		for _, f := range faults {
			args = append(args, "--fault", f)
		}
		code, stdout, stderr := clitest.Run(args...)
		if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
			t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
		}
		if !regexp.MustCompile(`MariaDB 10\.\d+\.\d+ ready on 127\.0\.0\.1:\d+`).MatchString(stderr) {
			t.Errorf("no 'MariaDB VERSION ready on 127.0.0.1:PORT':\n%s", stderr)
		}
		r := clitest.LoadResult(t, out)
		if len(r.Faults) != len(faults) {
			t.Fatalf("%d faults, want %d: %+v", len(r.Faults), len(faults), r.Faults)
		}
		for i, f := range r.Faults {
			rc := f.Recovery
			switch {
			case !f.Injected || strings.Contains(f.Note, "not injected") || strings.Contains(f.Note, "failed"):
				t.Errorf("%s: %+v", faults[i], f)
			case rc == nil || rc.FirstOKS == nil:
				t.Errorf("%s: no op succeeded after it: %+v", faults[i], f)
			case rc.Invariants != "OK":
				t.Errorf("%s: invariants %q", faults[i], rc.Invariants)
			case f.Kind == "terminate-backends" && (!strings.HasPrefix(f.Note, "2 sessions terminated") || rc.Reconnects == nil || *rc.Reconnects == 0):
				// the two clients' sessions, not the fault's own
				t.Errorf("%s: %s, reconnects %v", faults[i], f.Note, rc.Reconnects)
			}
		}
	})
}
