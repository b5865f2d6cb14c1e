package workflow

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestClaimLoopBacksOff: through PgBouncer a worker's session connects at
// once while the server is down (and while PgBouncer refuses logins for
// server_login_retry after it), and its claim fails at once; the loop
// must back off as the runner's clients do, not spin. The bound on claim
// errors comes from workload.ReconnectBackoff's schedule and the outage
// (at most the time from the kill to the end of the run), not from how
// fast this machine is: see maxFailures. Failed before: 746 claim errors
// from 2 workers (bound 82), each retry at once.
func TestClaimLoopBacksOff(t *testing.T) {
	testutil.NeedPgBouncer(t)
	// Whether a claim is in flight when the server goes down, or waits in
	// PgBouncer for it to come back, is up to timing this test does not
	// control: a run whose outage no claim met shows nothing about the
	// backoff and is tried again, up to three times.
	for attempt := 1; ; attempt++ {
		claim, outage := claimsInAnOutage(t)
		const workers = 2
		limit := workers * maxFailures(outage)
		t.Logf("attempt %d: claim errors %v in an outage of at most %s; bound %d", attempt, claim.Errors, outage.Round(time.Millisecond), limit)
		if claim.ErrorCount() == 0 {
			if attempt < 3 {
				continue
			}
			t.Fatalf("no claim failed in %d runs: the planted outage did not reach the workers", attempt)
		}
		if n := claim.ErrorCount(); n > int64(limit) {
			t.Errorf("%d claim errors from %d workers in %s: more than the backoff allows (%d)", n, workers, outage.Round(time.Millisecond), limit)
		}
		return
	}
}

// claimsInAnOutage runs the workflow with two signal workers through
// PgBouncer for 10 s on a throwaway server killed 1 s in for 3 s, and
// returns the claim op and the longest the claims could have failed: from
// the kill (after the warm-up, if any) to the end of the run.
func claimsInAnOutage(t *testing.T) (*result.Op, time.Duration) {
	t.Helper()
	w := newWorkflow(t, "--signal-workers", "2")
	s := spec(target.TempPostgresSpec, w, 2, 0)
	s.Runner.Iterations, s.Runner.Duration, s.Runner.Grace = 0, 10*time.Second, 5*time.Second
	s.DB.Via = target.Via{Kind: target.ViaPgBouncer, PgBouncer: target.PgBouncer{Mode: "transaction", Size: 4}}
	kill, err := fault.Parse("1s:kill-server:3s")
	if err != nil {
		t.Fatal(err)
	}
	s.Faults = []fault.Spec{kill}
	db := openDB(t, s)
	start := time.Now()
	r, err := job.Run(context.Background(), s, db)
	if r == nil {
		t.Fatal(err)
	}
	if err != nil { // the check through PgBouncer may still be refused: not this test's matter
		t.Logf("the run's check: %v", err)
	}
	claim := r.Op(stepClaim)
	if claim == nil {
		t.Fatal("no claim op in the result")
	}
	return claim, time.Since(start) - kill.At
}

// maxFailures bounds the failures in a row one loop backing off with
// workload.ReconnectBackoff can have within d, but with a chance below
// 1e-9. The waits before the schedule reaches its cap may all be 0 (full
// jitter): count them all. After that each wait is uniform on
// [0, MaxReconnectBackoff]; n of them sum to at most d with a chance of
// at most (d/MaxReconnectBackoff)^n / n! (the volume of a simplex).
func maxFailures(d time.Duration) int {
	uncapped := 1
	for ; 5*10*time.Millisecond<<(uncapped-1) < workload.MaxReconnectBackoff; uncapped++ {
	}
	x := d.Seconds() / workload.MaxReconnectBackoff.Seconds()
	n, logP := 0, 0.0 // log of x^n / n!
	for logP > math.Log(1e-9) || n < 1 {
		n++
		logP += math.Log(x) - math.Log(float64(n))
	}
	return uncapped + n
}
