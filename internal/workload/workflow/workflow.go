package workflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// The clients' ops, in report order.
const (
	opStart   = "start"
	opPublish = "signal_publish"
	opAwait   = "await"
)

// The steps (workload.Stepper): the signal workers' transactions, then the
// phases.
const (
	stepClaim      = "claim"
	stepApply      = "apply"
	stepCompletion = "signal_to_completion"
	stepWorkflow   = "workflow"
	stepLateness   = "lateness"
)

// Indices into Steps.
const (
	iClaim = iota
	iApply
	iCompletion
	iWorkflow
	iLateness
)

// The --wake modes.
const (
	wakeNotify = "notify"
	wakePoll   = "poll"
)

// scenario is a preset of the study's transport scenarios: the defaults of
// --steps and --signal-delay, and whether the publisher finds the instance
// by its business key.
type scenario struct {
	steps int
	delay time.Duration
	byKey bool
}

var scenarios = map[string]scenario{
	"signal-roundtrip": {steps: 1},
	"immediate-burst":  {steps: 10},
	"delayed-burst":    {steps: 10, delay: time.Second},
	"external-resume":  {steps: 1, byKey: true},
}

func scenarioNames() string {
	var n []string
	for k := range scenarios {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// Workload is the workflow workload.
type Workload struct {
	// flags
	scenarioName string
	steps        int
	workers      int
	claimBatch   int
	wakeAsked    string
	pollEvery    time.Duration
	signalDelay  time.Duration
	failRate     float64
	maxAttempts  int
	backoff      time.Duration
	lease        time.Duration
	stuckAfter   time.Duration
	fs           *pflag.FlagSet

	sc      scenario
	wake    string // the wake-up used: notify or poll
	notes   []string
	sql     schema
	clients int
	seed    uint64

	// the run
	base            int64 // instance ids of this run are above it
	last            int64 // and up to it (its block, idBits)
	waiters         []waiter
	rec             atomic.Pointer[recorder] // the first client's, for the workers
	conflicts       atomic.Int64             // optimistic version misses
	leaseLost       atomic.Int64             // applications refused because the lease had passed on
	handlerFailures atomic.Int64             // handler failures retried or dead-lettered
	notified        atomic.Int64             // notifications the listener received
	besideOps       atomic.Int64             // transactions committed that no op records (Unrecorded)
	unknownCommits  atomic.Int64             // starts and publishes whose commit outcome is unknown
	failedPublishes atomic.Int64             // publishes that failed (rolled back): their workflows stay started
}

// recorder holds a StepRecorder for an atomic.Pointer.
type recorder struct{ workload.StepRecorder }

var _ workload.Configurable = (*Workload)(nil)

// Flags registers the workload's options.
func (w *Workload) Flags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.StringVar(&w.scenarioName, "scenario", "signal-roundtrip", "preset: signal-roundtrip, immediate-burst (10 signals per workflow), delayed-burst (10 signals due after 1s, lateness measured), external-resume (the signal finds its workflow by business key)")
	fs.IntVar(&w.steps, "steps", 0, "signals per workflow (default: the scenario's, 1 for signal-roundtrip)")
	fs.IntVar(&w.workers, "signal-workers", 8, "signal workers beside the clients, each with its own connection")
	fs.IntVar(&w.claimBatch, "claim-batch", 1, "signals a worker claims (leases) at once")
	fs.StringVar(&w.wakeAsked, "wake", "", "how idle workers learn of new signals: notify (LISTEN/NOTIFY) or poll (default: notify where the database has LISTEN/NOTIFY)")
	fs.DurationVar(&w.pollEvery, "poll-interval", 50*time.Millisecond, "how often an idle worker polls the queue with --wake poll")
	fs.DurationVar(&w.signalDelay, "signal-delay", 0, "signals are due this long after they are published (default: the scenario's, 1s for delayed-burst)")
	fs.Float64Var(&w.failRate, "handler-fail-rate", 0, "probability that a worker's handler fails an attempt (retried with backoff, dead-lettered after --max-attempts)")
	fs.IntVar(&w.maxAttempts, "max-attempts", 5, "attempts at a signal before it is dead-lettered")
	fs.DurationVar(&w.backoff, "retry-backoff", 10*time.Millisecond, "delay before a failed signal is due again, doubling with each attempt (at most 1s)")
	fs.DurationVar(&w.lease, "lease", 30*time.Second, "how long a claim holds a signal; after it another worker may take the signal over")
	fs.DurationVar(&w.stuckAfter, "stuck-after", 30*time.Second, "a workflow not completed this long after it started is stuck")
	workload.RuntimeFlags(fs, "scenario", "steps", "signal-workers", "claim-batch", "wake", "poll-interval", "signal-delay",
		"handler-fail-rate", "max-attempts", "retry-backoff", "lease", "stuck-after")
}

// Validate checks the options and applies the scenario's defaults.
func (w *Workload) Validate() error {
	sc, ok := scenarios[w.scenarioName]
	if !ok {
		return fmt.Errorf("unknown --scenario %q: choose one of %s", w.scenarioName, scenarioNames())
	}
	changed := func(name string) bool { return w.fs != nil && w.fs.Changed(name) }
	if !changed("steps") {
		w.steps = sc.steps
	}
	if !changed("signal-delay") {
		w.signalDelay = sc.delay
	}
	w.sc = sc
	switch {
	case w.steps < 1 || w.steps > 1000:
		return fmt.Errorf("--steps %d: give 1 to 1000 signals per workflow", w.steps)
	case w.workers < 1 || w.workers > maxWorkers:
		return fmt.Errorf("--signal-workers %d: give 1 to %d (each is a connection of its own)", w.workers, maxWorkers)
	case w.claimBatch < 1:
		return fmt.Errorf("--claim-batch %d: give at least 1", w.claimBatch)
	case w.wakeAsked != "" && w.wakeAsked != wakeNotify && w.wakeAsked != wakePoll:
		return fmt.Errorf("unknown --wake %q: choose notify or poll", w.wakeAsked)
	case w.pollEvery <= 0:
		return fmt.Errorf("--poll-interval %s: give a positive duration", w.pollEvery)
	case w.signalDelay < 0:
		return workload.NegativeError("signal-delay", w.signalDelay)
	case !(w.failRate >= 0 && w.failRate < 1): // NaN too
		return fmt.Errorf("--handler-fail-rate %g: give a probability from 0 up to (not including) 1", w.failRate)
	case w.maxAttempts < 1:
		return fmt.Errorf("--max-attempts %d: give at least 1", w.maxAttempts)
	case w.backoff < 0:
		return workload.NegativeError("retry-backoff", w.backoff)
	case w.lease <= 0:
		return fmt.Errorf("--lease %s: give a positive duration", w.lease)
	case w.stuckAfter <= 0:
		return fmt.Errorf("--stuck-after %s: give a positive duration", w.stuckAfter)
	case w.stuckAfter <= w.signalDelay: // else every workflow is stuck, and the check fails (exit 3)
		return fmt.Errorf("--stuck-after %s is not longer than --signal-delay %s: no workflow could complete in time; give a longer --stuck-after or a shorter --signal-delay", w.stuckAfter, w.signalDelay)
	}
	w.wake = w.wakeAsked
	return nil
}

// maxWorkers bounds --signal-workers: each holds a connection (a file
// and a server session) for the whole run; more is a typo.
const maxWorkers = 10_000

// Settings are the options as recorded in a Result; wake is the mode used.
func (w *Workload) Settings() map[string]any {
	return map[string]any{
		"scenario":          w.scenarioName,
		"steps":             w.steps,
		"signal_workers":    w.workers,
		"claim_batch":       w.claimBatch,
		"wake":              w.wake,
		"poll_interval":     w.pollEvery.String(),
		"signal_delay":      w.signalDelay.String(),
		"handler_fail_rate": w.failRate,
		"max_attempts":      w.maxAttempts,
		"retry_backoff":     w.backoff.String(),
		"lease":             w.lease.String(),
		"stuck_after":       w.stuckAfter.String(),
	}
}

var _ workload.Noter = (*Workload)(nil)

// Notes say how the workload fitted itself to the database.
func (w *Workload) Notes() []string { return w.notes }

var _ workload.CycleCounter = (*Workload)(nil)

// CycleUnit: each cycle starts and awaits one workflow, what a workflow
// engine's baseline counts.
func (w *Workload) CycleUnit() string { return "workflows" }

// OpNames lists the clients' ops in report order.
func (w *Workload) OpNames() []string { return []string{opStart, opPublish, opAwait} }

var _ workload.ReadOnlyOps = (*Workload)(nil)

// ReadOnlyOps is the await, which only reads the instance's state until
// the workers completed it: --read-from may poll a standby, where the
// completion shows once the standby replayed it.
func (w *Workload) ReadOnlyOps() []string { return []string{opAwait} }

var _ workload.Stepper = (*Workload)(nil)

// Steps are the workers' transactions and the phases; lateness only when
// signals are delayed.
func (w *Workload) Steps() []workload.Step {
	s := []workload.Step{
		{Name: stepClaim, Kind: result.KindTxn},
		{Name: stepApply, Kind: result.KindTxn},
		{Name: stepCompletion, Kind: result.KindPhase},
		{Name: stepWorkflow, Kind: result.KindPhase},
	}
	if w.signalDelay > 0 {
		s = append(s, workload.Step{Name: stepLateness, Kind: result.KindPhase})
	}
	return s
}

// Init fits the wake-up to the dialect and creates the tables (there is
// no initial data: every run adds its own workflows), marked as
// txnbench's (workload.Schema.Prepare: tables of these names without the
// mark are refused).
func (w *Workload) Init(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions) (bool, error) {
	w.notes, w.clients, w.seed, w.wake = nil, max(o.Clients, 1), o.Seed, w.wakeAsked
	switch {
	case w.wakeAsked == wakeNotify && !d.Caps.ListenNotify:
		return false, fmt.Errorf("%w: --wake notify needs LISTEN/NOTIFY, which %s lacks: use --wake poll", workload.ErrUnsupported, d.Name)
	case w.wakeAsked == "" && d.Caps.ListenNotify:
		w.wake = wakeNotify
	case w.wakeAsked == "":
		w.wake = wakePoll
		w.note(fmt.Sprintf("signal workers poll every %s: %s has no LISTEN/NOTIFY", w.pollEvery, d.Name))
	}
	w.sql = newSchema(d.Caps, w.steps, w.wake == wakeNotify)
	if !d.Caps.SkipLocked {
		w.note(fmt.Sprintf("signal workers claim without FOR UPDATE SKIP LOCKED: %s has one writer at a time", d.Name))
	}
	if create, err := w.sql.tables.Make(ctx, c, o, w.sql.drop, w.sql.ddl, "workflow tables", nil); err != nil || !create {
		return false, err
	}
	if err := idBlocks.Create(ctx, c); err != nil {
		return false, err
	}
	return true, workload.MarkLoaded(ctx, c, dataName, nil)
}

func (w *Workload) note(n string) { w.notes = append(w.notes, n) }

// idBits is how many low bits of an instance id number a run's
// workflows: each run takes a block of 1<<idBits ids of its own (a row in
// the blocks table, which two runs cannot both insert), so that runs
// sharing the tables never start a workflow with the same id, and each
// one's check counts its own workflows alone.
const idBits = 32

// idBlocks are the runs' blocks of instance ids.
var idBlocks = workload.IDBlocks{Table: tBlocks, Bits: idBits, What: "workflow ids"}

var _ workload.Starter = (*Workload)(nil)

// Start takes this run's block of instance ids and resets the run's
// counters.
func (w *Workload) Start(ctx context.Context, c target.Conn) error {
	first, last, err := idBlocks.Take(ctx, c, func() (top int64, err error) {
		return top, target.QueryRow(ctx, c, w.sql.maxInstance, nil, &top)
	})
	if err != nil {
		return err
	}
	w.base, w.last = first, last // ids above base
	w.waiters = make([]waiter, w.clients)
	for i := range w.waiters {
		w.waiters[i].done = make(chan struct{}, 1)
	}
	w.rec.Store(nil)
	w.conflicts.Store(0)
	w.leaseLost.Store(0)
	w.handlerFailures.Store(0)
	w.notified.Store(0)
	w.besideOps.Store(0)
	w.unknownCommits.Store(0)
	w.failedPublishes.Store(0)
	return nil
}

// NewClient makes client id (a starter).
func (w *Workload) NewClient(id int, rng *rand.Rand) workload.Client {
	c := &client{w: w, id: id, rng: rng, wt: &w.waiters[id%len(w.waiters)], timer: time.NewTimer(time.Hour)}
	c.timer.Stop()
	c.ops = []workload.Op{{Name: opStart, Run: c.start}, {Name: opPublish, Run: c.publish}, {Name: opAwait, Run: c.await}}
	return c
}

// micros is t in unix microseconds, as the tables keep times.
func micros(t time.Time) int64 { return t.UnixMicro() }
