package clitest

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// ServerReady and PoolerReady match the lines of a run's stderr that
// name the port of its throwaway PostgreSQL and of the PgBouncer in front
// of it (the port is the first group): RunAgainstImpostor's portRe.
const (
	ServerReady = `PostgreSQL \S+ ready on 127\.0\.0\.1:(\d+)`
	PoolerReady = `ready on 127\.0\.0\.1:(\d+) in front of it`
)

// RefusalsAsAuth loads the result a run against an impostor
// (RunAgainstImpostor) wrote to out and checks its faults' outages: a
// refusal is class auth, never unclassified. met says what the impostor
// saw ("3 startups"), for the log. Which connections meet the impostor is
// the machine's: on a busy one txnbench's own readiness probes and console
// reads may be what it saw, the clients finding the port free
// (connect_refused) instead; so no auth error at all is logged, not
// failed. It returns the result.
func RefusalsAsAuth(t testing.TB, out, met string) *result.Result {
	t.Helper()
	r, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	errs := OutageErrors(r)
	t.Logf("impostor: %s; errors in the outage by class: %v", met, errs)
	if errs["other"] > 0 {
		t.Errorf("errors in the outage by class: %v: want the refusals counted as auth, none unclassified", errs)
	}
	if errs["auth"] == 0 {
		t.Logf("no client met the impostor in this outage (%s, %v): the refusal's class was not exercised", met, errs)
	}
	return r
}

// Exited runs cmd to its end and returns its exit status; a command that
// could not run fails the test.
func Exited(t testing.TB, cmd *exec.Cmd) int {
	t.Helper()
	var ee *exec.ExitError
	if err := cmd.Run(); err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}
