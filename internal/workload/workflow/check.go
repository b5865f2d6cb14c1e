package workflow

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// Check verifies, for the workflows this run started: every one completed
// (or failed by a dead-lettered signal), none stuck (one not final
// --stuck-after after it started; a younger one is unfinished, as when a
// run is interrupted, and said, not a violation); each signal applied
// exactly once (applied, still queued or dead-lettered, never two of
// these, and the instance advanced once per history row); dead letters
// within what --handler-fail-rate predicts; and no lease left held.
func (w *Workload) Check(ctx context.Context, c target.Conn) (result.Check, error) {
	var ch result.Check
	got := map[string]int64{}
	first := w.base + 1
	cutoff := micros(time.Now().Add(-w.stuckAfter))
	for _, q := range w.sql.checkCounts {
		args := []any{first, w.last}
		if q.cutoff {
			args = append(args, cutoff)
		}
		var n int64
		if err := target.QueryRow(ctx, c, q.sql, args, &n); err != nil {
			return ch, fmt.Errorf("checking invariants (%s): %w", q.name, err)
		}
		got[q.name] = n
	}
	var leases int64
	if err := target.QueryRow(ctx, c, w.sql.leasesHeld, []any{first, w.last}, &leases); err != nil {
		return ch, fmt.Errorf("checking invariants (leases): %w", err)
	}
	stuck, dead := got["stuck"], got["dead"]
	ch.UnknownCommits = w.unknownCommits.Load()
	accepted, unknown := ch.UnknownCommits+w.failedPublishes.Load(), ""
	if accepted > 0 {
		unknown = fmt.Sprintf("; up to %d accepted: %d commits of unknown outcome and %d failed publishes may have left a workflow no starter waited for", accepted, ch.UnknownCommits, w.failedPublishes.Load())
	}
	ch.Add("every workflow completed", stuck <= accepted,
		"failures %d, dead-lettered %d, runtime conflicts %d, stuck %d (of %d workflows started, %d unfinished when the run ended; stuck: not completed within --stuck-after %s%s)",
		got["failed"], dead, w.conflicts.Load(), stuck, got["started"], got["unfinished"], w.stuckAfter, unknown)
	ch.Add("no signal lost", got["lost"] == 0,
		"%d workflows have fewer signals applied, queued or dead-lettered than they published", got["lost"])
	ch.Add("no signal applied twice", got["twice"] == 0,
		"%d workflows were advanced more often than they have signals, or have a signal both applied and still queued or dead-lettered", got["twice"])
	ch.Add("history matches the workflows", got["unrecorded"] == 0,
		"%d workflows advanced a different number of times than their history rows say", got["unrecorded"])
	// attempts spent without the handler's verdict (a lease taken over, a
	// session lost) bring a signal closer to dead-lettering
	spent := max(got["attempts"]-got["applied"]-w.handlerFailures.Load(), 0)
	lo, hi, model := w.deadBounds(got["applied"]+dead, spent)
	ch.Add("dead letters within the failure model", dead >= lo && dead <= hi, "%d dead-lettered; %s", dead, model)
	ch.Add("no lease left held", leases == 0, "%d queued signals still leased after the workers stopped", leases)
	return ch, nil
}

// deadBounds is the range of dead letters the failure model accepts among
// n signals that reached an outcome: without --handler-fail-rate none;
// with it each signal is dead-lettered when all --max-attempts attempts
// fail, with probability q = P^max-attempts, so the count is binomial(n,
// q), accepted within 4 standard deviations of its mean, plus one. Each of
// the spent attempts, which ended without the handler's verdict, may add
// one dead letter.
func (w *Workload) deadBounds(n, spent int64) (lo, hi int64, model string) {
	if w.failRate == 0 {
		return 0, 0, "expected 0 without --handler-fail-rate"
	}
	q := math.Pow(w.failRate, float64(w.maxAttempts))
	mean := float64(n) * q
	slack := 4*math.Sqrt(float64(n)*q*(1-q)) + 1
	lo, hi = int64(math.Max(0, math.Ceil(mean-slack))), int64(math.Floor(mean+slack))+spent
	model = fmt.Sprintf("expected %.1f (%d signals x %g^%d), accepted %d to %d", mean, n, w.failRate, w.maxAttempts, lo, hi)
	if spent > 0 {
		model += fmt.Sprintf(" (%d attempts ended without the handler's verdict: leases taken over, sessions lost)", spent)
	}
	return lo, hi, model
}
