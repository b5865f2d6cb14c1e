package workflow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// waiter is how a worker tells a client, in process, that its instance
// reached a final state: a hint that saves polling; the instance row stays
// the truth.
type waiter struct {
	instance atomic.Int64 // the client's instance in flight
	done     chan struct{}
	at       atomic.Int64 // unix nanos of the final commit, 0 before
}

// finished tells the waiter of instance id, if it still waits for it,
// that the instance's final state committed at t. A workflow of an
// earlier run (its signals left queued when that run was interrupted or
// killed) or of another run sharing the tables has no waiter.
func (w *Workload) finished(id int64, t time.Time) {
	if id <= w.base || id > w.last {
		return
	}
	wt := &w.waiters[int((id-w.base-1)%int64(len(w.waiters)))]
	if wt.instance.Load() != id {
		return
	}
	wt.at.Store(t.UnixNano())
	select {
	case wt.done <- struct{}{}:
	default:
	}
}

// errStuck is the await of a workflow that did not complete in time.
var errStuck = errors.New("workflow stuck")

// client is a starter: each cycle starts a workflow, publishes its
// signals and waits until the workers have completed it.
type client struct {
	w     *Workload
	id    int
	rng   *rand.Rand
	ops   []workload.Op
	rec   workload.StepRecorder
	wt    *waiter
	timer *time.Timer

	seq       int64
	inst      int64  // this cycle's instance
	key       string // its business key (external-resume)
	began     time.Time
	published time.Time

	publishFailed bool // this cycle's publish failed (counted in failedPublishes)
}

func (c *client) Ops() []workload.Op { return c.ops }

// RecordSteps takes the runner's recorder; the first one is the workers'.
func (c *client) RecordSteps(rec workload.StepRecorder) {
	c.rec = rec
	c.w.rec.CompareAndSwap(nil, &recorder{rec})
}

// NextCycle picks the cycle's instance id and makes its waiter wait for
// it. There is no pause: a starter starts the next workflow at once.
func (c *client) NextCycle() time.Duration {
	w := c.w
	c.seq++
	c.inst = w.base + (c.seq-1)*int64(len(w.waiters)) + int64(c.id%len(w.waiters)) + 1
	if w.sc.byKey {
		c.key = "wf-" + strconv.FormatInt(c.inst, 10)
	}
	c.publishFailed = false
	c.wt.at.Store(0)
	c.wt.instance.Store(c.inst)
	select {
	case <-c.wt.done: // a stale hint
	default:
	}
	c.began = time.Now()
	return 0
}

// start is transaction 1: the instance row.
func (c *client) start(ctx context.Context, conn target.Conn) error {
	var key any
	if c.w.sc.byKey {
		key = c.key
	}
	if err := conn.Begin(ctx); err != nil {
		return err
	}
	defer conn.Rollback(ctx)
	_, err := conn.ExecCommit(ctx, c.w.sql.start, c.inst, c.w.scenarioName, c.w.steps, micros(time.Now()), key)
	return c.w.committed(err)
}

// committed counts a commit whose outcome is unknown (the connection was
// lost during COMMIT): its workflow may exist without a starter waiting
// for it, so the check accepts as many stuck ones. It returns err.
func (w *Workload) committed(err error) error {
	if target.CommitOutcomeUnknown(err) {
		w.unknownCommits.Add(1)
	}
	return err
}

// publish is transaction 2: the instance waits, its signals are queued
// and, with --wake notify, pg_notify wakes the workers at the commit. A
// publish that fails (a lost session, a restarted server) leaves its
// workflow started, with no signal and no starter waiting for it: counted
// so that the check accepts it.
func (c *client) publish(ctx context.Context, conn target.Conn) (err error) {
	w := c.w
	committing := false // an unknown outcome before the commit is a rollback
	defer func() {      // once per cycle: the runner may retry a publish
		if failed := err != nil && !(committing && target.CommitOutcomeUnknown(err)); failed != c.publishFailed {
			c.publishFailed = failed
			if failed {
				w.failedPublishes.Add(1)
			} else {
				w.failedPublishes.Add(-1) // a retry succeeded
			}
		}
	}()
	now := time.Now()
	due := micros(now.Add(w.signalDelay))
	if err := conn.Begin(ctx); err != nil {
		return err
	}
	defer conn.Rollback(ctx)
	if w.sc.byKey {
		var id int64
		if w.sql.keyID == "" {
			err = target.QueryRow(ctx, conn, w.sql.publishByKey, []any{c.key, micros(now)}, &id)
		} else if _, err = conn.Exec(ctx, w.sql.publishByKey, c.key, micros(now)); err == nil {
			err = target.QueryRow(ctx, conn, w.sql.keyID, []any{c.key}, &id)
		}
		if err != nil {
			return fmt.Errorf("resuming workflow %s: %w", c.key, err)
		}
		if id != c.inst {
			return fmt.Errorf("business key %s found workflow %d, not %d", c.key, id, c.inst)
		}
	} else if n, err := conn.Exec(ctx, w.sql.publish, c.inst, micros(now)); err != nil {
		return err
	} else if n != 1 {
		return fmt.Errorf("workflow %d: %d instances waiting for its signal, want 1", c.inst, n)
	}
	if w.sql.notify == "" {
		if _, err := conn.Exec(ctx, w.sql.insertSignals, c.inst, due, "{}"); err != nil {
			return err
		}
		committing = true
		if err := w.committed(conn.Commit(ctx)); err != nil {
			return err
		}
	} else {
		if _, err := conn.Exec(ctx, w.sql.insertSignals, c.inst, due, "{}"); err != nil {
			return err
		}
		committing = true
		if _, err := conn.ExecCommit(ctx, w.sql.notify, due); w.committed(err) != nil {
			return err
		}
	}
	c.published = time.Now()
	return nil
}

// awaitPoll is how often a starter looks at its instance row when no hint
// has come.
const awaitPoll = time.Second

// await waits for the workers' hint that the instance is final, or polls,
// and reads the instance row: the database says whether it completed. It
// records the phases from the publish commit and from the cycle's start
// to the completion commit. A workflow not final within --stuck-after is
// an error (and stays stuck for the invariant check). Each read is a
// transaction of its own: those that find the instance not yet final are
// beyond the one the op records, and are counted beside the ops
// (Unrecorded) as they commit, so that those before the window stay out
// of its count as they stay out of the server's.
func (c *client) await(ctx context.Context, conn target.Conn) error {
	deadline := c.published.Add(c.w.stuckAfter)
	for {
		wait := min(awaitPoll, time.Until(deadline))
		c.timer.Reset(max(wait, 0))
		select {
		case <-c.wt.done:
			c.timer.Stop()
		case <-c.timer.C:
		case <-ctx.Done():
			c.timer.Stop()
			return ctx.Err()
		}
		var state string
		var completed *int64
		if err := target.QueryRow(ctx, conn, c.w.sql.readInstance, []any{c.inst}, &state, &completed); err != nil {
			return err
		}
		switch state {
		case stateCompleted:
			at := c.wt.at.Load()
			if at == 0 && completed != nil { // the hint came late: the worker's clock as it committed
				at = *completed * 1000
			}
			end := time.Unix(0, at)
			c.rec.RecordStep(iCompletion, max(end.Sub(c.published), 0))
			c.rec.RecordStep(iWorkflow, max(end.Sub(c.began), 0))
			return nil
		case stateFailed:
			return nil // a dead-lettered signal, as --handler-fail-rate asked: counted by the check
		}
		c.w.besideOps.Add(1)
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: workflow %d not completed within --stuck-after %s", errStuck, c.inst, c.w.stuckAfter)
		}
	}
}
