package job

import (
	"context"
	"errors"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
	"github.com/txnbench/txnbench/internal/workload"
)

// Run initialises the workload if needed, runs it, checks the invariants
// and returns the Result. After an interrupt (ctx cancelled) the Result
// holds what was measured and Interrupted is set.
//
// A run goes through its stages in this order (the caller opened db):
// init (the shards' load, the schema and data, the run table, the
// workload's Start), the start stages (see stages: each started in turn,
// each registering its own observer of the run), the run itself, the stop
// stages in reverse order, assemble (the Result) and check (the
// invariants). What outlives the stop stages (the run table's heartbeat,
// the faults' timeline) ends after the check; then what bound the run is
// decided (result.DecideLimit), from every figure the Result holds.
func Run(ctx context.Context, s Spec, db *Database) (*result.Result, error) {
	poolers, err := db.watchPoolers()
	if err != nil {
		return nil, err
	}
	defer poolers.Close() // the consoles' sessions, last
	rn := &running{s: s, db: db, ctx: ctx, poolers: poolers}
	var endWind func()
	rn.wctx, endWind = windDown(ctx)
	defer endWind()
	defer rn.atEnd.unwind() // within the budget: it uses wctx

	if err := rn.init(); err != nil {
		return nil, err
	}
	out, err := rn.measure()
	if err != nil {
		return nil, err
	}
	rn.r = rn.assemble(out)
	r, err := rn.check()
	// what lasted through the check ends now, so that the faults'
	// timeline is on r as its limit is decided (the stalls name them)
	rn.atEnd.unwind()
	r.LimitedBy = result.DecideLimit(r)
	return r, err
}

// running is one Run as it goes: what its stages started, and what is
// undone when they stop (stops) and when Run returns (atEnd).
type running struct {
	s   Spec
	db  *Database
	ctx context.Context // the run's: cancelled by an interrupt
	r   *result.Result  // once assembled

	stops cleanups // the start stages', undone after the run
	atEnd cleanups // what lasts through the check, undone as Run returns
	// wctx bounds the work after the run (see windDown): after an
	// interrupt, all of it shares one budget.
	wctx context.Context

	began     time.Time                                             // a shard's start, on the server's clock
	member    *member                                               // this run's row in the run table, or nil
	faults    *faultRun                                             // nil without faults
	collector *telemetry.Collector                                  // nil with --telemetry off
	telemetry *result.Telemetry                                     // what the collector gathered
	conns     connect.Connector                                     // the clients' connections
	pool      *target.PoolStats                                     // the shared pool's figures, if any
	poolers   *pooler.Watcher                                       // the run's poolers (nil without): their counters, their restarts
	window    *windowClock                                          // when the window opened
	cpu       *partsCPU                                             // the parts' CPU over the window
	shard     result.Shard                                          // a shard's place in its run
	first     []runner.Observer                                     // observers before the caller's
	last      []runner.Observer                                     // and after them
	onCycle   func(func(runner.CycleEvent)) func(runner.CycleEvent) // wraps the runner's cycle callback
	beside    func() workload.Unrecorded                            // what the workload committed beside its ops since the window opened
	loadNotes []string                                              // the deaths during the load, for the Result's notes
	lags      []result.StandbyLag                                   // the standbys' lag (watchReplicas)
	// reads is the connector of the read-only ops with --read-from
	// (readfrom.go), nil without; standbyBefore the standbys' commits as
	// it opened.
	reads         connect.Connector
	standbyBefore map[string]int64
}

// A stage is started before the run, in the order of stages, and stopped
// after it in reverse order: its start registers its observer of the run
// and pushes its stop on rn.stops. A stage that fails to start leaves the
// ones before it to be stopped.
type stage struct {
	name  string
	start func(rn *running) error
}

// stages are a run's start stages, in the order they start.
var stages = []stage{
	{"faults", (*running).startFaults},                 // the schedule and, for network faults, the proxy
	{"telemetry", (*running).startTelemetry},           // the collector, first to see the window open
	{"CPU", (*running).measureCPU},                     // the parts' and the machine's CPU, for the limit
	{"network", (*running).watchNetwork},               // the --network proxies' CPU (not the client's), the round trip in the window
	{"replication", (*running).watchReplicas},          // the standbys' lag on the primary (replicalag.go)
	{"connectors", (*running).openConnectors},          // how the clients get connections
	{"background", (*running).startBackground},         // the workload's work beside the clients
	{"pooler counters", (*running).takePoolerCounters}, // what the Result's pooler section compares to
	{"supervision", (*running).supervise},              // restarts of what txnbench started, and the window clock
	{"shard barrier", (*running).startTogether},        // the shards start together (sharded runs)
	{"fault schedule", (*running).scheduleFaults},      // the faults on their schedule, over once stopped
	{"live", (*running).watchLive},                     // the run so far, each interval, for Spec.Live
}

// init waits for shard 0's load (a sharded run), creates the workload's
// schema and data, registers the run in the run table and runs the
// workload's Start.
func (rn *running) init() error {
	ctx, s, db := rn.ctx, &rn.s, rn.db
	if s.sharded() {
		s.Fresh = s.Fresh && s.Runner.Shard.Index == 0 // shard 0 alone loads
		if err := awaitLoad(ctx, *s, db); err != nil {
			return err
		}
	}
	// The load's session also registers the run and runs Start (issue
	// 40: a -t 1 run's start-up opened one for each).
	created, c, err := rn.load()
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if !created {
		s.log("using the existing " + s.Name + " schema and data (--reinit to start fresh)")
	}
	if err := rn.register(c); err != nil {
		return err
	}
	db.noteTLS(*s, c)
	if err := workload.Start(ctx, s.Workload, c); err != nil {
		return err
	}
	if m := rn.member; m != nil {
		m.beat(*s, db)
		rn.atEnd.push(m.stop)
	}
	return nil
}

// loadTries bounds how often load runs Init.
const loadTries = 4

// load runs Init with supervision on, as in the window: when something
// txnbench started (the server, a pooler, the proxy) dies during it,
// supervision starts it again and Init runs again; from scratch (Fresh)
// when the Init before left its data incomplete (its load cut short).
// Each death becomes a note of the run. It returns the session of the
// Init that succeeded, for the caller to close.
func (rn *running) load() (created bool, c target.Conn, err error) {
	s, db := rn.s, rn.db
	db.supervise()
	for try := 1; ; try++ {
		before := db.startedPIDs()
		if c, err = db.Connect(rn.ctx); err != nil {
			err = target.ConnectError(db.URL, err)
		} else if created, err = initOn(rn.ctx, s, db, c); err != nil {
			c.Close(context.Background())
		}
		if err == nil || try == loadTries || rn.ctx.Err() != nil {
			break
		}
		if try > 1 && !s.Fresh && errors.Is(err, workload.ErrIncompleteData) {
			s.Fresh = true // the load cut short was this run's own
			continue
		}
		if !db.diedSince(rn.ctx, before, err) {
			break
		}
		for _, e := range rn.noteLoadDeaths() {
			s.log(e.text() + "; the load failed (" + errclass.FirstLine(err) + "): loading again")
		}
	}
	rn.noteLoadDeaths()
	return created, c, err
}

// noteLoadDeaths makes the deaths seen during the load notes of the run,
// and returns them.
func (rn *running) noteLoadDeaths() []death {
	events := rn.db.takeDeaths(rn.wctx)
	for _, e := range events {
		rn.loadNotes = append(rn.loadNotes, "during the load, "+e.text())
	}
	return events
}

// register puts the run in the run table before Start counts anything,
// so that a run writing the same tables at the same time is known
// (share.go); a shard reads the server's clock, its row comes with the
// barrier. It runs on c, the session Start runs on next.
func (rn *running) register(c target.Conn) (err error) {
	ctx, s, db := rn.ctx, rn.s, rn.db
	switch {
	case s.sharded():
		if rn.began, err = serverNow(ctx, c); err != nil {
			return err
		}
	case s.registers(db):
		m, err := registerRun(ctx, s, db, c)
		if err != nil {
			s.log("not registered in the run table: runs writing the same tables at the same time cannot be told apart (" + errclass.FirstLine(err) + ")")
			return nil
		}
		rn.member = m
		rn.atEnd.push(func() { m.end(rn.wctx, s, db) })
	}
	return nil
}

// measure starts the stages, runs the workload and stops the stages in
// reverse order, whatever happened.
func (rn *running) measure() (*runner.Outcome, error) {
	defer rn.stops.unwind()
	for _, st := range stages {
		if err := st.start(rn); err != nil {
			return nil, err
		}
	}
	rc := rn.s.Runner
	// a copy: the caller's observers stay as they are
	rc.Observers = append(append(append([]runner.Observer{}, rn.first...), rc.Observers...), rn.last...)
	if rn.onCycle != nil {
		rc.OnCycle = rn.onCycle(rc.OnCycle)
	}
	rc.Reads = rn.reads
	return runner.Run(rn.ctx, rc, rn.conns, rn.s.Workload)
}

// startFaults makes the faults' schedule and, for a network fault, the
// proxy the clients connect through; as Run returns the faults go on the
// Result's timeline.
func (rn *running) startFaults() error {
	f, err := startFaults(rn.ctx, rn.wctx, rn.s, rn.db)
	if err != nil {
		return err
	}
	rn.faults = f
	rn.atEnd.push(func() { f.finish(rn.wctx, &rn.r) })
	return nil
}

// startTelemetry starts the collector (nil with --telemetry off), the
// first observer of the run: its baseline comes before anything else as
// the window opens. Its stop lets the pooler's server sessions end (their
// backends publish their statistics as they exit) and finishes it.
func (rn *running) startTelemetry() error {
	tel := startTelemetry(rn.ctx, rn.s, rn.db, rn.poolers)
	if tel == nil {
		return nil
	}
	rn.collector = tel
	rn.first = append(rn.first, telemetryObserver{tel})
	rn.stops.push(func() {
		wctx := rn.wctx
		if rn.ctx.Err() == nil { // after an interrupt, the budget left is the check's
			rn.poolers.CloseServers(wctx)
		}
		fctx, cancel := telemetryCtx(rn.ctx, wctx)
		rn.telemetry = tel.Finish(fctx)
		cancel()
	})
	return nil
}

// openConnectors opens what the clients get their connections from,
// through the fault proxy when there is one; its stop keeps the pool's
// figures and closes the sessions (the server publishes their
// statistics), within the wind-down's budget.
func (rn *running) openConnectors() error {
	conns, err := connect.New(rn.ctx, rn.faults.target(rn.db), rn.s.Conn)
	if err != nil {
		return err
	}
	rn.conns = conns
	rn.stops.push(func() {
		rn.pool = conns.PoolStats()
		within(rn.wctx, conns.Close) // a pool waits for its sessions' cancel requests (15 s each on a frozen server)
	})
	return rn.openReads()
}

// startBackground starts the workload's own work beside the clients.
func (rn *running) startBackground() error {
	stop, err := startBackground(rn.ctx, rn.s, rn.db)
	if err != nil {
		return err
	}
	rn.stops.push(stop)
	var o runner.Observer
	if o, rn.beside = windowUnrecorded(rn.s.Workload); o != nil {
		rn.last = append(rn.last, o)
	}
	return nil
}

// measureCPU measures the CPU of the parts txnbench started and of the
// machine over the span the client's is measured in; assemble decides
// from it what limited the run.
func (rn *running) measureCPU() error {
	rn.cpu = &partsCPU{db: rn.db}
	rn.last = append(rn.last, rn.cpu)
	return nil
}

// watchNetwork measures the --network proxies over the span the client's
// CPU is measured in (they run in txnbench's process, and assemble takes
// their share off the client's) and the round trip through the clients'
// shaped path during the window, on a session of its own that its stop
// closes.
func (rn *running) watchNetwork() error {
	if rn.db.network != nil {
		w, closeProbe := watchNetwork(rn.ctx, rn.db)
		rn.last = append(rn.last, w)
		rn.stops.push(closeProbe)
	}
	return nil
}

// takePoolerCounters reads the poolers' counters before the run.
func (rn *running) takePoolerCounters() error {
	rn.poolers.Snapshot(rn.ctx)
	return nil
}

// supervise has what txnbench started restarted when it dies unasked,
// and observes when the window opens (the deaths' times count from it).
func (rn *running) supervise() error {
	rn.db.supervise()
	rn.window = &windowClock{}
	rn.first = append(rn.first, rn.window)
	return nil
}

// startTogether is the last thing before a sharded run: the shards start
// together, each then marked alive in the run table until Run returns.
func (rn *running) startTogether() (err error) {
	s, db := rn.s, rn.db
	if !s.sharded() {
		return nil
	}
	if rn.shard, err = startTogether(rn.ctx, s, db, rn.began); err != nil {
		return err
	}
	m := &member{runID: s.Shard.RunID, shard: s.Runner.Shard.Index, name: s.shardName()}
	m.beat(s, db)
	rn.member = m
	rn.atEnd.push(m.stop)
	return nil
}

// scheduleFaults observes the run with the faults' schedule; its stop,
// the first after the run, waits until every fault is over: the server
// and pooler are back before anything reads them (after an interrupt,
// within the wind-down's budget).
func (rn *running) scheduleFaults() error {
	f := rn.faults
	if f == nil {
		return nil
	}
	rn.last = append(rn.last, f.Observer())
	rn.onCycle = f.OnCycle
	rn.stops.push(func() { f.Wait(rn.wctx) })
	return nil
}

// assemble makes the Result of the run's outcome and what its stages
// gathered.
func (rn *running) assemble(out *runner.Outcome) *result.Result {
	s, db := rn.s, rn.db
	r := assemble(s, db, out)
	if rn.beside != nil {
		u := rn.beside()
		r.WorkloadCommits, r.Notifications = u.Commits, u.Notifications
	}
	if d, ok := s.Workload.(workload.DataReporter); ok {
		r.Data = d.Data() // what Start found
	}
	r.Telemetry = rn.telemetry
	r.Replication = rn.lags
	r.ReadRouting = rn.readRouting()
	r.SlowOps = out.SlowOps
	rn.collector.ExplainSlowOps(r.SlowOps, s.DB.Via.Kind != target.ViaDirect)
	r.SetServerTimes()
	r.Pool = rn.pool
	committed, _ := r.Transactions()
	r.Pooler = rn.poolers.Result(rn.wctx, rn.telemetry, committed)
	db.addDeaths(rn.wctx, r, rn.window.opened(out.Started))
	r.Notes = append(r.Notes, rn.loadNotes...)
	r.CPU = rn.cpu.use(r)
	return r
}

// check runs the invariant check, even after an interrupt: it is quick
// and says whether anything was lost. It gets a session of its own: the
// server may have restarted during the run.
func (rn *running) check() (*result.Result, error) {
	s, db, r, m := rn.s, rn.db, rn.r, rn.member
	wctx := rn.wctx
	ctx, cancel := context.WithTimeout(wctx, 5*time.Minute)
	defer cancel()
	var err error
	if s.sharded() {
		if r.Invariants, err = endShard(ctx, s, db, r, rn.shard, m); r.Invariants != nil || err != nil {
			return r, err
		}
	}
	var ch result.Check
	err = withCheckConn(ctx, s, db, rn.poolers, r, func(ctx context.Context, c target.Conn) (err error) {
		var sh sharing
		if m != nil {
			if !s.sharded() {
				if _, err := finishShard(ctx, s, c, m); err != nil {
					return err
				}
			}
			if sh, err = shareBooks(ctx, s, c, m.runID, shareWait, false); err != nil || sh.not != nil {
				if sh.not != nil {
					ch = *sh.not
				}
				return err
			}
		}
		if ch, err = s.Workload.Check(ctx, c); err != nil || m == nil {
			return err
		}
		return sh.after(ctx, s, c, &ch)
	})
	if err != nil && wctx.Err() != nil {
		r.Invariants = &result.Check{NotChecked: context.Cause(wctx).Error()}
		return r, nil
	}
	if err != nil && rn.ctx.Err() != nil {
		// Interrupted, with a server a fault had killed (down, or still
		// starting again): the check could not run, which is no verdict,
		// and the run still ends as interrupted (130), not as failed.
		r.Invariants = &result.Check{NotChecked: "after the interrupt: " + errclass.FirstLine(err)}
		return r, nil
	}
	for _, why := range []error{errCheckNoAnswer, errCheckSilent} {
		if errors.Is(err, why) { // the verdict says so, and the error why (exit 1)
			r.Invariants = &result.Check{NotChecked: why.Error()}
		}
	}
	if err != nil {
		return r, err
	}
	r.Invariants = &ch
	return r, nil
}

// cleanups is a stack of what to undo, last pushed first.
type cleanups []func()

func (c *cleanups) push(f func()) { *c = append(*c, f) }

// unwind undoes everything pushed, in reverse order, and empties c.
func (c *cleanups) unwind() {
	for len(*c) > 0 {
		f := (*c)[len(*c)-1]
		*c = (*c)[:len(*c)-1]
		f()
	}
}
