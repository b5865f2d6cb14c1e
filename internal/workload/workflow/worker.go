package workflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// notifyIdle is how long an idle worker waits for a NOTIFY before it
// looks at the queue anyway: a lease that expired (its worker died) wakes
// no one.
const notifyIdle = time.Second

// claimGrace bounds how long a claim may go on after the run's end was
// asked for. The end does not cut a claim short: cut, it would break the
// session while the server may still commit the claim (a cancel request
// that lands during the commit is too late), and the worker's release on
// a new session could run before that commit, leaving its lease held.
const claimGrace = 10 * time.Second

// maxConflicts is how often a worker retries an application that lost the
// optimistic version check before it leaves the signal to lease expiry.
const maxConflicts = 100

var _ workload.Backgrounder = (*Workload)(nil)

// Background starts the signal workers, each on a session of its own, and
// with --wake notify a listener on a session of the server's own that
// wakes them. stop ends them, releases the leases they still hold and
// returns when every goroutine and session is gone.
func (w *Workload) Background(ctx context.Context, env workload.BackgroundEnv) (func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	ws := make([]*worker, w.workers)
	closeAll := func() {
		for _, k := range ws {
			if k != nil && k.conn != nil {
				k.conn.Close(context.Background())
			}
		}
	}
	for i := range ws {
		c, err := env.Connect(ctx)
		if err != nil {
			cancel()
			closeAll()
			return nil, fmt.Errorf("connecting signal worker %d of %d: %w: give fewer --signal-workers", i+1, len(ws), err)
		}
		ws[i] = &worker{w: w, id: i + 1, env: env, conn: c, wake: make(chan struct{}, 1),
			rng: rand.New(rand.NewPCG(w.seed, uint64(1<<32+i))), jitter: rand.New(rand.NewPCG(w.seed, uint64(2<<32+i))),
			timer: time.NewTimer(time.Hour)}
		ws[i].timer.Stop()
	}
	var next atomic.Uint64
	// wake wakes up to n workers, round robin, idle ones first: a
	// workflow's signals need no more, and waking all for each would make
	// most claim nothing. A busy worker that gets the wake-up claims once
	// more before it idles (it may have just found the queue empty).
	wake := func(n int) {
		first := int(next.Add(1) % uint64(len(ws)))
		for _, idle := range []bool{true, false} {
			for i := 0; i < len(ws) && n > 0; i++ {
				k := ws[(first+i)%len(ws)]
				if k.idling.Load() != idle {
					continue
				}
				select {
				case k.wake <- struct{}{}:
					n--
				default:
				}
			}
		}
	}
	perSignal := func() { wake((w.steps + w.claimBatch - 1) / w.claimBatch) }
	if w.wake == wakeNotify && env.Session == nil {
		w.wake, w.sql.notify = wakePoll, ""
		w.note(fmt.Sprintf("signal workers poll every %s: LISTEN needs a session of its own and %s", w.pollEvery, env.NoSession))
	}
	if w.wake == wakeNotify && w.fs != nil && w.fs.Changed("poll-interval") {
		w.note(fmt.Sprintf("--poll-interval %s has no effect: the signal workers wait for NOTIFY (--wake notify); give --wake poll to compare polling", w.pollEvery))
	}
	if w.wake == wakeNotify {
		l, err := w.openListener(ctx, env)
		if err != nil {
			cancel()
			closeAll()
			return nil, fmt.Errorf("listening for signals (--wake notify): %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.listen(ctx, env, l, perSignal)
		}()
	}
	for _, k := range ws {
		k.wakeOne = func() { wake(1) }
		wg.Add(1)
		go func() {
			defer wg.Done()
			k.run(ctx)
		}()
	}
	return func() { cancel(); wg.Wait() }, nil
}

// BackgroundSessions are the workers' sessions and the listener's.
func (w *Workload) BackgroundSessions() int { return w.workers + 1 }

var _ workload.Unrecorder = (*Workload)(nil)

// Unrecorded is what the workload's sessions committed since Start that
// no op records (workload.Unrecorder): an await's looks at its instance
// row after the first, the workers' releases of their leases, the
// listener's LISTEN, and the notifications the listener received.
func (w *Workload) Unrecorded() workload.Unrecorded {
	return workload.Unrecorded{Commits: w.besideOps.Load(), Notifications: w.notified.Load()}
}

// openListener opens a session of the server's own that listens on the
// workload's channel.
func (w *Workload) openListener(ctx context.Context, env workload.BackgroundEnv) (target.Conn, error) {
	c, err := env.Session(ctx)
	if err != nil {
		return nil, err
	}
	l, ok := c.(target.Listener)
	if !ok {
		c.Close(ctx)
		return nil, fmt.Errorf("the driver cannot LISTEN: use --wake poll")
	}
	if err := l.Listen(ctx, notifyChannel); err != nil {
		c.Close(ctx)
		return nil, err
	}
	w.besideOps.Add(1)
	return c, nil
}

// listen wakes workers on each notification (wake: as many as a
// workflow's signals need), or at the signals' due time when it lies
// ahead. It reconnects when its session is lost; the workers' fallback
// look at the queue covers the gap.
func (w *Workload) listen(ctx context.Context, env workload.BackgroundEnv, c target.Conn, wake func()) {
	defer func() {
		if c != nil {
			c.Close(context.Background())
		}
	}()
	for ctx.Err() == nil {
		if c == nil {
			var err error
			if c, err = w.openListener(ctx, env); err != nil {
				c = nil
				sleep(ctx, notifyIdle)
				continue
			}
		}
		payload, err := c.(target.Listener).WaitForNotification(ctx)
		if err != nil {
			c.Close(context.Background())
			c = nil
			continue
		}
		w.notified.Add(1)
		if due, err := strconv.ParseInt(payload, 10, 64); err == nil {
			if d := time.Until(time.UnixMicro(due)); d > 0 {
				time.AfterFunc(d, wake)
				continue
			}
		}
		wake()
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// worker is one signal worker.
type worker struct {
	w       *Workload
	id      int
	env     workload.BackgroundEnv
	conn    target.Conn // nil after it broke, until reconnected
	rng     *rand.Rand
	jitter  *rand.Rand // the backoff's, apart from rng's handler failures
	wake    chan struct{}
	idling  atomic.Bool // waiting in idle, for a wake-up
	wakeOne func()      // wakes a worker (after a backoff)
	timer   *time.Timer
	claimed []claimed
	lost    bool // the session broke: the leases it held are to be given back
	fails   int  // failures in a row (to connect, claim or apply), for the backoff
}

// claimed is a signal the worker leased.
type claimed struct {
	inst     int64
	step     int
	attempts int
	due      int64
}

// run claims and applies signals until ctx ends, then releases what it
// still holds. A worker whose session was lost gives back, once it has a
// new one, the leases the lost one held: it dropped them with the session,
// and they would otherwise wait for --lease to expire.
func (k *worker) run(ctx context.Context) {
	defer k.release()
	// With --wake notify, the first look at the queue waits for a wake-up
	// (or the idle wait): one at once would commit just before the window
	// opens, in the second after the session's start in which the server
	// holds back its statistics, and the server's counters of the window
	// would hold it. With --wake poll, nothing wakes a worker: it looks at
	// once, as it always did.
	if k.w.wake == wakeNotify {
		k.idle(ctx)
	}
	for ctx.Err() == nil {
		if k.conn == nil {
			c, err := k.env.Connect(ctx)
			if err != nil {
				k.fails++
				sleep(ctx, workload.ReconnectBackoff(k.fails, k.jitter))
				continue
			}
			k.conn = c
			if k.lost {
				if _, err := c.Exec(ctx, k.w.sql.releaseLeases, k.id); err == nil { // on failure, they expire
					k.w.besideOps.Add(1)
				}
				k.lost = false
			}
		}
		if err := k.claim(ctx); err != nil {
			k.failed(ctx, iClaim, err)
			continue
		}
		k.fails = 0
		for i := range k.claimed {
			if ctx.Err() != nil || k.conn == nil {
				break // what is left keeps its lease until it expires
			}
			k.apply(ctx, &k.claimed[i])
		}
		if len(k.claimed) == 0 {
			k.idle(ctx)
		}
	}
}

// idle waits for a wake-up, or the poll interval (with --wake poll) or the
// fallback look at the queue (with notify).
func (k *worker) idle(ctx context.Context) {
	d := k.w.pollEvery
	if k.w.wake == wakeNotify {
		d = notifyIdle
	}
	k.idling.Store(true)
	defer k.idling.Store(false)
	k.timer.Reset(d)
	select {
	case <-k.wake:
	case <-k.timer.C:
	case <-ctx.Done():
	}
	k.timer.Stop()
}

// claim leases up to --claim-batch due signals, in one short transaction.
// It runs to its end even when ctx ends meanwhile (up to claimGrace), so
// that what it leased is known and the worker's release gives it back.
func (k *worker) claim(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimGrace)
	defer cancel()
	w := k.w
	k.claimed = k.claimed[:0]
	t0 := time.Now()
	if w.sql.claim == "" {
		if err := k.pickAndLease(ctx, t0); err != nil {
			return err
		}
		k.record(iClaim, time.Since(t0))
		return nil
	}
	rows, err := k.conn.Query(ctx, w.sql.claim, k.id, micros(t0.Add(w.lease)), micros(t0), w.claimBatch)
	if err := k.scanClaimed(rows, err, 0); err != nil {
		return err
	}
	k.record(iClaim, time.Since(t0))
	return nil
}

// scanClaimed appends the claimed signals rows (from a query that
// returned err) hold to k.claimed, each with attempts more attempts than
// the row says.
func (k *worker) scanClaimed(rows target.Rows, err error, attempts int) error {
	if err != nil {
		return err
	}
	for rows.Next() {
		var s claimed
		if err := rows.Scan(&s.inst, &s.step, &s.attempts, &s.due); err != nil {
			rows.Close()
			return err
		}
		s.attempts += attempts
		k.claimed = append(k.claimed, s)
	}
	rows.Close()
	return rows.Err()
}

// pickAndLease is claim without UPDATE ... RETURNING: in one
// transaction, lock the due signals (skipping those another worker has
// locked), then lease each.
func (k *worker) pickAndLease(ctx context.Context, t0 time.Time) error {
	w := k.w
	if err := k.conn.Begin(ctx); err != nil {
		return err
	}
	defer k.conn.Rollback(ctx)
	rows, err := k.conn.Query(ctx, w.sql.pick, micros(t0), w.claimBatch)
	if err := k.scanClaimed(rows, err, 1); err != nil { // the lease adds the attempt
		return err
	}
	until := micros(t0.Add(w.lease))
	for _, s := range k.claimed {
		if _, err := k.conn.Exec(ctx, w.sql.lease, k.id, until, s.inst, s.step); err != nil {
			k.claimed = k.claimed[:0]
			return err
		}
	}
	if err := k.conn.Commit(ctx); err != nil {
		k.claimed = k.claimed[:0]
		return err
	}
	return nil
}

// outcome is what one attempt at applying a signal did.
type outcome int

const (
	applied      outcome = iota // history written, instance advanced
	conflict                    // the instance's version changed: try again
	leaseGone                   // another worker holds the signal now
	retried                     // the handler failed: due again after a backoff
	deadLettered                // the handler failed its last attempt
)

// apply applies one claimed signal, retrying optimistic version misses.
func (k *worker) apply(ctx context.Context, s *claimed) {
	w := k.w
	fail := w.failRate > 0 && k.rng.Float64() < w.failRate
	for try := 1; ; try++ {
		t0 := time.Now()
		out, final, err := k.applyOnce(ctx, s, fail)
		if err != nil {
			k.failed(ctx, iApply, err)
			return // the signal keeps its lease until it expires; then another worker takes it
		}
		if out == conflict {
			w.conflicts.Add(1)
			k.retry(iApply)
			if try < maxConflicts {
				continue
			}
			return
		}
		end := time.Now()
		k.record(iApply, end.Sub(t0))
		switch out {
		case leaseGone:
			w.leaseLost.Add(1)
		case retried:
			w.handlerFailures.Add(1)
			if w.wake == wakeNotify {
				time.AfterFunc(backoff(w.backoff, s.attempts), k.wakeOne)
			}
		case deadLettered:
			w.handlerFailures.Add(1)
		case applied:
			if w.signalDelay > 0 {
				k.record(iLateness, max(end.Sub(time.UnixMicro(s.due)), 0))
			}
		}
		if final {
			w.finished(s.inst, end)
		}
		return
	}
}

// backoff is the delay before attempt+1 of a failed signal: base doubling
// with each attempt, at most a second.
func backoff(base time.Duration, attempt int) time.Duration {
	return min(base<<min(attempt-1, 20), time.Second)
}

// applyOnce is one short transaction: read the instance's version, then
// either advance it (version checked), take the signal off the queue
// (lease checked) and write its history, or, when the handler fails,
// put the signal back with a backoff or dead-letter it and fail the
// instance. final says the instance reached a final state.
func (k *worker) applyOnce(ctx context.Context, s *claimed, fail bool) (out outcome, final bool, err error) {
	w, c := k.w, k.conn
	sql := &w.sql
	if err := c.Begin(ctx); err != nil {
		return 0, false, err
	}
	defer c.Rollback(ctx)
	var version, done, steps int
	if err := target.QueryRow(ctx, c, sql.readVersion, []any{s.inst}, &version, &done, &steps); err != nil {
		return 0, false, err
	}
	now := time.Now()
	if fail && s.attempts < w.maxAttempts {
		n, err := c.ExecCommit(ctx, sql.retryLater, s.inst, s.step, k.id, s.attempts, micros(now.Add(backoff(w.backoff, s.attempts))))
		if err != nil || n == 0 {
			return leaseGone, false, err
		}
		return retried, false, nil
	}
	if fail {
		if n, err := c.Exec(ctx, sql.takeSignal, s.inst, s.step, k.id, s.attempts); err != nil || n == 0 {
			return leaseGone, false, err
		}
		if _, err := c.Exec(ctx, sql.insertDead, s.inst, s.step, s.attempts, "handler failed (--handler-fail-rate)", micros(now)); err != nil {
			return 0, false, err
		}
		if n, err := c.Exec(ctx, sql.failInstance, s.inst, version, micros(now)); err != nil || n == 0 {
			return conflict, false, err
		}
		return deadLettered, true, c.Commit(ctx)
	}
	if n, err := c.Exec(ctx, sql.advance, s.inst, version, micros(now)); err != nil || n == 0 {
		return conflict, false, err
	}
	if n, err := c.Exec(ctx, sql.takeSignal, s.inst, s.step, k.id, s.attempts); err != nil || n == 0 {
		return leaseGone, false, err
	}
	if _, err := c.ExecCommit(ctx, sql.insertHistory, s.inst, s.step, k.id, s.attempts, micros(now)); err != nil {
		return 0, false, err
	}
	return applied, done+1 >= steps, nil
}

// failed counts an error of step, unless the run is ending, drops a
// broken session (the next loop reconnects) and backs off as the runner's
// clients do after failures in a row (workload.ReconnectBackoff), so that
// a server that is away or refusing is not hammered: a session to a
// pooler connects at once and fails its first query.
func (k *worker) failed(ctx context.Context, step int, err error) {
	if ctx.Err() != nil {
		return // shutting down: not an error
	}
	if r := k.w.rec.Load(); r != nil {
		r.FailStep(step, target.Classify(err))
	}
	if k.conn.Broken() {
		k.conn.Close(context.Background())
		k.conn, k.lost = nil, true
	}
	k.fails++
	sleep(ctx, workload.ReconnectBackoff(k.fails, k.jitter))
}

func (k *worker) record(step int, d time.Duration) {
	if r := k.w.rec.Load(); r != nil {
		r.RecordStep(step, d)
	}
}

func (k *worker) retry(step int) {
	if r := k.w.rec.Load(); r != nil {
		r.RetryStep(step)
	}
}

// release gives back the leases the worker still holds (a batch cut short
// by the end of the run, or one its lost session claimed) and closes its
// session. A session lost while the worker idled is found only by using
// it: then a new one gives them back.
func (k *worker) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for try := 0; try < 2; try++ {
		if k.conn != nil && (try > 0 || k.conn.Broken()) {
			k.conn.Close(ctx)
			k.conn = nil
		}
		if k.conn == nil {
			c, err := k.env.Connect(ctx)
			if err != nil {
				return // the leases expire
			}
			k.conn = c
		}
		if _, err := k.conn.Exec(ctx, k.w.sql.releaseLeases, k.id); err == nil {
			k.w.besideOps.Add(1)
			break
		}
	}
	k.conn.Close(ctx)
	k.conn = nil
}
