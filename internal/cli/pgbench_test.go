package cli

import (
	"runtime"
	"testing"
)

// TestPgbenchProcs: the txnbench binary's pgbench runs on -j Ps, never
// more than Go's own choice, unless GOMAXPROCS is in the environment or
// the process is not txnbench's own (Main, which tests run in-process).
func TestPgbenchProcs(t *testing.T) {
	unset := func(string) string { return "" }
	set := func(k string) string {
		if k == "GOMAXPROCS" {
			return "4"
		}
		return ""
	}
	for _, c := range []struct {
		name           string
		process        bool
		threads, procs int
		getenv         func(string) string
		want           int
	}{
		{"binary, -j 1 of 2 cores", true, 1, 2, unset, 1},
		{"binary, -j 3 of 8 cores", true, 3, 8, unset, 3},
		{"binary, -j above the cores", true, 8, 2, unset, 0},
		{"binary, GOMAXPROCS set", true, 1, 4, set, 0},
		{"in-process", false, 1, 2, unset, 0},
	} {
		if got := pgbenchProcs(c.process, c.threads, c.procs, c.getenv); got != c.want {
			t.Errorf("%s: pgbenchProcs(%v, %d, %d) = %d, want %d", c.name, c.process, c.threads, c.procs, got, c.want)
		}
	}
}

// TestMainLeavesGOMAXPROCS: in-process, `pgbench -j 1` gets as far as
// connecting (past the point where the binary sets GOMAXPROCS) and
// leaves the test process's GOMAXPROCS as it was.
func TestMainLeavesGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if before == 1 {
		t.Skip("GOMAXPROCS is 1: -j 1 could not change it")
	}
	code, _, stderr := runMain("pgbench", "-n", "-j", "1", "-t", "1", "--telemetry", "off", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable")
	if code == 0 {
		t.Fatalf("pgbench against port 1 exited 0; stderr %q", stderr)
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS %d after an in-process pgbench -j 1, want %d as before", got, before)
	}
}
