package interp_test

import (
	"context"
	"os"
	osexec "os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/pgbench/interp"
	"github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// hotClient is a client of a builtin script on pgbench tables.
func hotClient(t testing.TB, builtin string, mode target.QueryMode) (*interp.Client, target.ScriptConn, target.Target) {
	t.Helper()
	tg := database(t)
	c := connect(t, tg)
	pgbenchTables(t, c)
	var s *script.Script
	var err error
	if builtin == "" {
		s, err = script.Parse("select1.sql", "SELECT 1;\n")
	} else {
		s, err = script.Builtin(builtin)
	}
	if err != nil {
		t.Fatal(err)
	}
	return interp.NewClient(config(mode, 1, s), 0), c, tg
}

// TestSteadyStateAllocations: a transaction of select-only and of
// "SELECT 1" in -M prepared, and of tpcb-like in -M prepared, allocates
// nothing once the statements are prepared.
func TestSteadyStateAllocations(t *testing.T) {
	for _, tc := range []struct {
		builtin string
		mode    target.QueryMode
		max     float64
	}{
		{"select-only", target.QueryPrepared, 0},
		{"", target.QueryPrepared, 0},
		{"tpcb-like", target.QueryPrepared, 0},
		{"select-only", target.QueryExtended, 0},
	} {
		cl, c, _ := hotClient(t, tc.builtin, tc.mode)
		ctx, cancel := context.WithCancel(context.Background())
		txn := func() {
			cl.Begin()
			if err := cl.Run(ctx, c, 0); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 10; i++ {
			txn()
		}
		if n := testing.AllocsPerRun(300, txn); n > tc.max {
			t.Errorf("%q -M %s: %.2f allocations per transaction, want at most %v", tc.builtin, tc.mode, n, tc.max)
		}
		cancel()
	}
}

func benchmarkScript(b *testing.B, builtin string, mode target.QueryMode) {
	cl, c, _ := hotClient(b, builtin, mode)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; i < b.N; i++ {
		cl.Begin()
		if err := cl.Run(ctx, c, 0); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(syscall.TimevalToNsec(ru1.Utime)-syscall.TimevalToNsec(ru0.Utime)) +
		time.Duration(syscall.TimevalToNsec(ru1.Stime)-syscall.TimevalToNsec(ru0.Stime))
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/txn")
}

func BenchmarkSelectOnlyPrepared(b *testing.B) {
	benchmarkScript(b, "select-only", target.QueryPrepared)
}
func BenchmarkSelect1Prepared(b *testing.B) { benchmarkScript(b, "", target.QueryPrepared) }
func BenchmarkTPCBPrepared(b *testing.B)    { benchmarkScript(b, "tpcb-like", target.QueryPrepared) }
func BenchmarkTPCBSimple(b *testing.B)      { benchmarkScript(b, "tpcb-like", target.QuerySimple) }

// TestClientCPUAgainstPgbench measures the client CPU per transaction of
// pgbench and of the interpreter for the same work on the same server
// (one client, one connection) and fails when the interpreter uses more
// than pgbench plus a margin. It is slow; set TXNBENCH_CPU_TEST=1.
func TestClientCPUAgainstPgbench(t *testing.T) {
	if os.Getenv("TXNBENCH_CPU_TEST") == "" {
		t.Skip("set TXNBENCH_CPU_TEST=1 to compare client CPU with pgbench")
	}
	pgbench := testutil.NeedPgbench(t)
	for _, tc := range []struct {
		name    string
		builtin string
		args    []string
		mode    target.QueryMode
	}{
		{"select-only prepared", "select-only", []string{"-b", "select-only", "-M", "prepared"}, target.QueryPrepared},
		{"SELECT 1 prepared", "", []string{"-M", "prepared"}, target.QueryPrepared},
		{"tpcb-like prepared", "tpcb-like", []string{"-b", "tpcb-like", "-M", "prepared"}, target.QueryPrepared},
		{"tpcb-like simple", "tpcb-like", []string{"-b", "tpcb-like", "-M", "simple"}, target.QuerySimple},
	} {
		const n = 20000
		cl, c, tg := hotClient(t, tc.builtin, tc.mode)
		_ = tg
		// The interpreter.
		ctx := context.Background()
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		for i := 0; i < n; i++ {
			cl.Begin()
			if err := cl.Run(ctx, c, 0); err != nil {
				t.Fatal(err)
			}
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		ours := cpuOf(ru0, ru1) / n

		// pgbench on the same database.
		var dbURL string
		rows := rowsOf(t, c, "SELECT current_database()")
		dbURL = strings.Replace(pgURL(t), "/postgres?", "/"+rows[0]+"?", 1)
		args := append([]string{"-n", "-c", "1", "-t", "20000"}, tc.args...)
		if tc.builtin == "" {
			f, _ := os.CreateTemp(t.TempDir(), "s*.sql")
			f.WriteString("SELECT 1;\n")
			f.Close()
			args = append(args, "-f", f.Name())
		}
		cmd := osexec.Command(pgbench, append(args, dbURL)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench: %v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		theirs := (time.Duration(syscall.TimevalToNsec(ru.Utime)) + time.Duration(syscall.TimevalToNsec(ru.Stime))) / n
		t.Logf("%s: client CPU per transaction: txnbench %v, pgbench %v", tc.name, ours, theirs)
		if ours > theirs*13/10+2*time.Microsecond {
			t.Errorf("%s: txnbench uses %v of client CPU per transaction, pgbench %v", tc.name, ours, theirs)
		}
	}
}

func cpuOf(a, b syscall.Rusage) time.Duration {
	return time.Duration(syscall.TimevalToNsec(b.Utime)-syscall.TimevalToNsec(a.Utime)) +
		time.Duration(syscall.TimevalToNsec(b.Stime)-syscall.TimevalToNsec(a.Stime))
}
