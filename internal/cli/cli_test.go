package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// runMain runs the command in this process. The end-to-end tests, which
// run it in child processes too, are in the packages under e2e (with
// their helpers in clitest, which cannot be imported here: it imports
// cli); the tests here need cli's unexported identifiers.
func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestRootBuildsWhatRuns: a command line that starts with a command's
// name builds that command alone (the others' flags cost a short run's
// start-up); anything else builds them all, for help and suggestions.
func TestRootBuildsWhatRuns(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	names := func(args ...string) string {
		var n []string
		for _, c := range a.rootCommand(args).Commands() {
			n = append(n, c.Name())
		}
		return strings.Join(n, " ")
	}
	if got := names("pgbench", "-t", "1"); got != "pgbench" {
		t.Errorf("pgbench -t 1 built %q, want pgbench alone", got)
	}
	for _, args := range [][]string{nil, {"help", "pgbench"}, {"--config", "x.toml", "run"}, {"pgbnch"}} {
		if got := names(args...); !strings.Contains(got, "pgbench") || !strings.Contains(got, "run") || !strings.Contains(got, "check") {
			t.Errorf("%q built %q, want every command", args, got)
		}
	}
	// run and init build the workload named after them alone, the same way
	workloads := func(args ...string) string {
		var n []string
		for _, c := range a.rootCommand(args).Commands()[0].Commands() {
			n = append(n, c.Name())
		}
		return strings.Join(n, " ")
	}
	for _, cmd := range []string{"run", "init"} {
		if got := workloads(cmd, "script", "-b", "oltp-read-write"); got != "script" {
			t.Errorf("%s script built the workloads %q, want script alone", cmd, got)
		}
		for _, args := range [][]string{{cmd}, {cmd, "--help"}, {cmd, "scrip"}, {cmd, "--config", "x.toml", "script"}} {
			if got := workloads(args...); !strings.Contains(got, "script") || !strings.Contains(got, "tpcc") {
				t.Errorf("%q built the workloads %q, want every one", args, got)
			}
		}
	}
}
