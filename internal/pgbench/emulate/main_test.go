package emulate

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	_ "github.com/txnbench/txnbench/internal/engine/engines" // job starts temp-postgres through its engine
)

// TestMainPrintsThroughEnv runs the entry point on command lines that
// need no database: it prints to Env's writers, never exits, and returns
// pgbench's status.
func TestMainPrintsThroughEnv(t *testing.T) {
	for _, c := range []struct {
		args         []string
		code         int
		stdout, errs string
	}{
		{[]string{"--version"}, 0, "pgbench (PostgreSQL) " + pgbench17.version + " (txnbench v9)\n", ""},
		{[]string{"--pgbench-version=15", "--version"}, 0, "pgbench (PostgreSQL) 15.18 (txnbench v9)\n", ""},
		{[]string{"-c", "0", "--pgbench-version"}, pgbenchBad, "", "pgbench: error: --pgbench-version needs a release: choose 15 or 17\n"},
		{[]string{"-c", "0"}, pgbenchBad, "", "pgbench: error: -c/--clients must be in range 1..2147483647\n"},
		{[]string{"--nope"}, pgbenchBad, "", "pgbench: unrecognized option '--nope'\n" +
			"pgbench: hint: Try \"txnbench pgbench --help\" for more information.\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), c.args, Env{Stdout: &stdout, Stderr: &stderr, Version: "v9", Redact: strings.Clone})
		if code != c.code || stdout.String() != c.stdout || stderr.String() != c.errs {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, stdout.String(), stderr.String(), c.code, c.stdout, c.errs)
		}
	}
}

// TestMainTellsThreads: Env.Threads hears the run's threads (-j, at most
// -c) once the options are valid, before the connection (here refused),
// and nothing when the command line needs no run.
func TestMainTellsThreads(t *testing.T) {
	db := "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable"
	for _, c := range []struct {
		args []string
		want []int
	}{
		{[]string{"-n", "-t", "1", "--telemetry", "off", db}, []int{1}},
		{[]string{"-n", "-c", "2", "-j", "4", "-t", "1", "--telemetry", "off", db}, []int{2}},
		{[]string{"-n", "-c", "8", "-j", "4", "-t", "1", "--telemetry", "off", db}, []int{4}},
		{[]string{"--version"}, nil},
		{[]string{"-c", "0", db}, nil},
	} {
		var got []int
		var stdout, stderr bytes.Buffer
		Main(context.Background(), c.args, Env{Stdout: &stdout, Stderr: &stderr, Version: "v9", Redact: strings.Clone,
			Threads: func(n int) { got = append(got, n) }})
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: Threads heard %v, want %v (stderr %q)", c.args, got, c.want, stderr.String())
		}
	}
}
