package telemetry

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// Options says what a Collector watches.
type Options struct {
	// Server is the run database on the server itself, never through a
	// pooler; zero for an embedded engine: then only txnbench's and the
	// machine's CPU are sampled.
	Server target.Spec
	// Poolers watches the poolers between clients and server (nil
	// without one): the samples read their admin consoles (SHOW STATS),
	// the pooler counters are their sum, and each restart a sample sees
	// goes to it as a pooler.Restart.
	Poolers *pooler.Watcher
	// Sample is how often pg_stat_activity is sampled for wait events.
	Sample time.Duration
	// StatementsFix is the Note given when pg_stat_statements is missing
	// from the run database; "" gives the generic fix.
	StatementsFix string
	// Sampler reads the server's counters, statement times and wait
	// samples: its engine's (internal/engine picks it); nil is PgStat.
	Sampler Sampler
	// FlushWait bounds how long Start waits for earlier sessions (the
	// load's) and Finish for the run's sessions to end (their statistics
	// reach pg_stat_database as they exit); 0 is 3 s.
	FlushWait time.Duration
}

// The telemetry session's name in pg_stat_activity.
const appName = "txnbench-telemetry"

// queryTimeout bounds each of the telemetry session's statements (and
// each interval's readings together): a server that stops answering loses
// its session, which is opened again later.
const queryTimeout = 5 * time.Second

// reconnectEvery is how often a lost session is opened again.
const reconnectEvery = time.Second

// Collector samples beside one run. Measure, EndWindow, Tick and Finish may
// be called from any goroutine; the sampling happens on the Collector's own.
type Collector struct {
	o     Options
	conn  target.Conn // nil: no server session (yet, or lost)
	db    string      // the run database's name; "" when never connected
	pgNum int         // server_version_num
	stmts bool        // pg_stat_statements is readable
	host  *hostReader

	reqs chan request
	done chan struct{}

	// owned by the sampling goroutine
	tel        result.Telemetry
	measuring  bool
	windowOpen bool // wait samples are counted: Measure to EndWindow
	start      time.Time
	lastHost   hostReading
	lastDB     dbReading
	haveDB     bool
	ownAtDB    int64 // own at lastDB
	stmts0     map[string]stmt
	pools      []*poolConsole // the poolers read, from Measure on
	waits      *waitCounter
	history    *waitHistory // per session, for ExplainSlowOps
	// own counts the telemetry session's own transactions (each of its
	// statements is one), subtracted from xact_commit.
	own int64
	// lost is when the session was lost (elapsed seconds) and why; lost
	// is negative while connected.
	lost    float64
	lostWhy string
	lastTry time.Time
	gap     []string     // what the next sample lacks
	dbAt    float64      // when lastDB was read
	dropped atomic.Int64 // ticks that found the queue full
	// finishing is set by Finish: the samples still queued are taken
	// without reading the server or the poolers (their counters go to the
	// final readings, into the last sample), so a server or pooler that
	// does not answer (each sample waiting out its deadline) cannot hold
	// the final readings back, and every interval still has its sample.
	finishing atomic.Bool
	// lostStuck: the session was lost because the server did not answer
	// in time (not closed, refused): the final readings do not try again.
	lostStuck bool
}

type reqKind int

const (
	reqMeasure reqKind = iota
	reqEndWindow
	reqTick
	reqFinish
	reqNotes
	reqSnapshot
)

type request struct {
	kind    reqKind
	elapsed float64
	notes   []string
	into    *result.Telemetry // reqSnapshot's copy
	reply   chan struct{}
}

// Start opens the telemetry session (when there is a server), waits until
// the database's earlier sessions have ended (so what they did, such as
// the initial load, is published before the baseline) and starts the
// sampler. It never fails: what it cannot do becomes a Note.
func Start(ctx context.Context, o Options) *Collector {
	if o.Sample <= 0 {
		o.Sample = 100 * time.Millisecond
	}
	if o.FlushWait <= 0 {
		o.FlushWait = 3 * time.Second
	}
	if o.Sampler == nil {
		o.Sampler = PgStat
	}
	c := &Collector{o: o, host: newHostReader(), reqs: make(chan request, 1024), done: make(chan struct{}),
		waits: newWaitCounter(), history: newWaitHistory(), lost: -1}
	if o.Server.URL != "" {
		if err := c.open(ctx); err != nil {
			c.note("no database telemetry: %v", err)
		} else if n := c.othersGone(ctx); n > 0 {
			c.note("%d other sessions were connected to database %s when the window opened: work they had not yet published (PostgreSQL publishes a busy session's statistics when it goes idle, at most once a second) may be counted in the window", n, c.db)
		}
	}
	go c.loop()
	return c
}

// open connects to the server and finds out what it offers. The session
// uses the extended protocol without preparing (pgx's exec mode): each of
// its statements is one round trip and one transaction, none is prepared
// in a transaction of its own, and its arguments go as parameters of
// unknown type, as the simple protocol's quoted literals would, without
// pgx parsing the statement's text to splice them in (the simple
// protocol's price: ~66,000 instructions per wait sample in the client
// being measured, issue 31).
func (c *Collector) open(ctx context.Context) error { return c.o.Sampler.open(ctx, c) }

// openPgStat is PgStat's open.
func (c *Collector) openPgStat(ctx context.Context) error {
	sp := c.o.Server.WithParam("application_name", appName).WithParam("default_query_exec_mode", "exec")
	ctx, cancel := context.WithTimeout(ctx, 2*queryTimeout) // connecting, and the statements below
	defer cancel()
	t, err := target.Open(ctx, sp)
	if err != nil {
		return err
	}
	c.own++         // Open's SELECT version(), on a session of its own
	defer t.Close() // its sessions live on
	conn, err := t.Connect(ctx)
	if err != nil {
		return target.ConnectError(sp.URL, err)
	}
	var num, db string
	if err := target.QueryRow(ctx, conn, ownTag+"SELECT current_database(), current_setting('server_version_num')", nil, &db, &num); err != nil {
		conn.Close(ctx)
		return fmt.Errorf("reading the database name: %w", err)
	}
	c.own++
	reopened := c.db != ""
	c.db, c.conn = db, conn
	fmt.Sscan(num, &c.pgNum)
	if reopened {
		return nil
	}
	var n int64
	switch err := c.scan(ctx, hasStatementsQuery, nil, &n); {
	case err != nil:
		c.note("no statement times: looking for pg_stat_statements: %v", err)
	case n == 0:
		c.note("%s", c.statementsFix())
	default:
		if _, err := c.snapshot(ctx); err != nil {
			c.note("no statement times: pg_stat_statements cannot be read: %s: %s", errclass.FirstLine(err), c.statementsFix())
		} else {
			c.stmts = true
		}
	}
	return nil
}

func (c *Collector) statementsFix() string {
	if c.o.StatementsFix != "" {
		return c.o.StatementsFix
	}
	return fmt.Sprintf("no statement times: pg_stat_statements is not installed in database %s: add pg_stat_statements to shared_preload_libraries (restart), then CREATE EXTENSION pg_stat_statements in it", c.db)
}

// scan runs one of the session's statements, counting it as its own
// transaction when it succeeds.
func (c *Collector) scan(ctx context.Context, q string, args []any, dest ...any) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	err := target.QueryRow(ctx, c.conn, q, args, dest...)
	if err == nil {
		c.own++
	}
	return err
}

func (c *Collector) snapshot(ctx context.Context) (map[string]stmt, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	s, err := c.o.Sampler.snapshot(ctx, c.conn, c.db)
	if err == nil {
		c.own++
	}
	return s, err
}

// othersGone waits, at most FlushWait, until the run database has no
// client sessions but the telemetry session's: a session's last
// statistics are published as it exits. It returns how many stayed. A
// server that does not answer loses the session (serverLost).
func (c *Collector) othersGone(ctx context.Context) int64 {
	if !c.o.Sampler.publishesOnExit() {
		return 0
	}
	deadline := time.Now().Add(c.o.FlushWait)
	for {
		var n int64
		err := c.scan(ctx, otherBackendsQuery, []any{c.db}, &n)
		if err != nil {
			c.serverLost("waiting for the other sessions to end", err)
			return n
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// AddNotes adds the caller's notes to the telemetry, before sampling
// starts.
func (c *Collector) AddNotes(notes ...string) {
	r := request{kind: reqNotes, notes: notes, reply: make(chan struct{})}
	c.reqs <- r
	<-r.reply
}

func (c *Collector) note(format string, args ...any) {
	c.tel.Notes = append(c.tel.Notes, fmt.Sprintf(format, args...))
}

// Measure takes the baseline: the measured window starts. It waits for
// the readings (at most a few seconds), so the window's first statements
// come after them.
func (c *Collector) Measure() {
	r := request{kind: reqMeasure, reply: make(chan struct{})}
	c.reqs <- r
	select {
	case <-r.reply:
	case <-time.After(5 * time.Second):
	}
}

// EndWindow stops the wait sampling: the measured window has ended (the
// clients' last ops may still be finishing). It never blocks.
func (c *Collector) EndWindow() {
	select {
	case c.reqs <- request{kind: reqEndWindow}:
	default:
	}
}

// Tick asks for an interval's sample, ending elapsed seconds into the
// window. It never blocks: the runner calls it from its tick.
func (c *Collector) Tick(elapsed float64) {
	select {
	case c.reqs <- request{kind: reqTick, elapsed: elapsed}:
	default:
		c.droppedTick()
	}
}

func (c *Collector) droppedTick() { c.dropped.Add(1) }

// Finish takes the final readings once the run's clients are gone and
// returns the telemetry. ctx bounds the wait for their statistics.
func (c *Collector) Finish(ctx context.Context) *result.Telemetry {
	r := request{kind: reqFinish, reply: make(chan struct{})}
	c.finishing.Store(true)
	c.reqs <- r
	select {
	case <-r.reply:
	case <-ctx.Done():
		return &result.Telemetry{Notes: []string{"telemetry was cut short: " + context.Cause(ctx).Error()}}
	}
	<-c.done
	t := c.tel
	return &t
}

// loop is the sampling goroutine.
func (c *Collector) loop() {
	defer close(c.done)
	var poll <-chan time.Time
	if c.db != "" && c.o.Sampler.samplesWaits() { // wait samples: pg_stat_activity
		tk := time.NewTicker(c.o.Sample)
		defer tk.Stop()
		poll = tk.C
	}
	var agg, pids string
	for {
		select {
		case <-poll:
			if !c.measuring || c.finishing.Load() {
				continue
			}
			// The wait summary stays within the window; each session's
			// history goes on while the clients' last ops finish, as
			// those may be the slowest.
			ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
			if c.connected(ctx) {
				at := time.Now()
				if err := c.scan(ctx, waitsQuery, []any{c.db}, &agg, &pids); err != nil {
					c.serverLost("sampling pg_stat_activity", err)
				} else {
					if c.windowOpen {
						c.waits.add(agg)
					}
					c.history.add(at, pids)
				}
			}
			cancel()
		case r := <-c.reqs:
			ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
			switch r.kind {
			case reqMeasure:
				c.measure(ctx)
			case reqEndWindow:
				c.windowOpen = false
			case reqTick:
				if c.measuring {
					c.tick(ctx, r.elapsed, !c.finishing.Load())
				}
			case reqNotes:
				c.tel.Notes = append(c.tel.Notes, r.notes...)
			case reqSnapshot:
				c.snapshotInto(r.into)
			case reqFinish:
				cancel()
				c.finish(context.Background())
				close(r.reply)
				return
			}
			cancel()
			if r.reply != nil {
				close(r.reply)
			}
		}
	}
}

// elapsed is the time since the window opened, in seconds.
func (c *Collector) elapsed() float64 {
	if c.start.IsZero() {
		return 0
	}
	return time.Since(c.start).Seconds()
}

// serverLost drops the server session after an error; it is opened again
// later (connected), and the run goes on meanwhile with client and
// machine telemetry.
func (c *Collector) serverLost(what string, err error) {
	c.lost, c.lostWhy = c.elapsed(), what+": "+errclass.FirstLine(err)
	c.lostStuck = target.Classify(err) == errclass.Timeout
	c.lastTry = time.Now()
	c.conn.Close(context.Background())
	c.conn = nil
}

// connected reopens a lost session, at most once every reconnectEvery,
// and says whether there is one.
func (c *Collector) connected(ctx context.Context) bool {
	if c.conn != nil {
		return true
	}
	if c.db == "" || time.Since(c.lastTry) < reconnectEvery {
		return false
	}
	if c.open(ctx) != nil {
		c.lastTry = time.Now() // from the attempt's end: it may have waited out its deadline
		return false
	}
	c.note("database telemetry lost its session at %.1f s (%s) and reconnected at %.1f s: no wait samples in between", c.lost, c.lostWhy, c.elapsed())
	c.gap = append(c.gap, fmt.Sprintf("database session lost at %.1f s, back at %.1f s", c.lost, c.elapsed()))
	c.lost, c.lostStuck = -1, false
	return true
}

// readDB makes the server publish the telemetry session's own counters
// (PostgreSQL 15 and later publish a session's statistics at most once a
// second, unless asked), then reads the database's counters; own is then
// the session's transactions the reading holds.
func (c *Collector) readDB(ctx context.Context) (dbReading, int64, bool) {
	var r dbReading
	if !c.connected(ctx) {
		return r, 0, false
	}
	return c.o.Sampler.read(ctx, c)
}

// readPgStat is PgStat's read.
func (c *Collector) readPgStat(ctx context.Context) (dbReading, int64, bool) {
	var r dbReading
	if c.pgNum >= 150000 {
		var s string
		if err := c.scan(ctx, ownTag+"SELECT pg_stat_force_next_flush()::text", nil, &s); err != nil {
			c.serverLost("reading pg_stat_database", err)
			return r, 0, false
		}
	}
	own := c.own
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if err := readDB(qctx, c.conn, c.pgNum, c.db, &r); err != nil {
		c.serverLost("reading pg_stat_database", err)
		return r, 0, false
	}
	c.own++
	return r, own, true
}

// dbDelta is the database's change since the last reading, less the
// telemetry session's own transactions and every session's login
// transaction; nil for the first reading. A reset of the statistics in
// between is flagged: the change is then what was counted since.
func (c *Collector) dbDelta(now dbReading, own int64) map[string]int64 {
	if !c.haveDB {
		c.lastDB, c.ownAtDB, c.haveDB = now, own, true
		c.dbAt = c.elapsed()
		return nil
	}
	last := c.lastDB
	ownDelta := own - c.ownAtDB
	if now.wasReset(&last) {
		c.note("the server's statistics were reset between %.1f s and %.1f s (a server crash, an immediate restart or pg_stat_reset): the database counters leave out what was done in between before the reset", c.dbAt, c.elapsed())
		c.gap = append(c.gap, "database statistics reset")
		last = dbReading{}
		last[walAt] = c.lastDB[walAt] // the WAL position carries on
		ownDelta = 0
	}
	d := now.delta(&last)
	d["xact_commit"] -= ownDelta + now[sessionsAt] - last[sessionsAt]
	c.lastDB, c.ownAtDB = now, own
	c.dbAt = c.elapsed()
	return d
}

func (c *Collector) measure(ctx context.Context) {
	c.lastHost = c.host.read()
	c.start = time.Now()
	if now, own, ok := c.readDB(ctx); ok {
		c.dbDelta(now, own)
		c.tel.Database = map[string]int64{}
	}
	if c.conn != nil && c.stmts {
		s, err := c.snapshot(ctx)
		if err != nil {
			c.note("no statement times: %s", errclass.FirstLine(err))
			c.stmts = false
		} else {
			c.stmts0 = s
		}
	}
	for i, a := range c.o.Poolers.Admins() {
		pc := &poolConsole{admin: a, name: c.o.Poolers.Name(i), lost: -1}
		p, err := pooler.Stats(ctx, a)
		if err != nil {
			c.note("no statistics of %s: SHOW STATS: %s", pc.name, errclass.FirstLine(err))
			continue
		}
		pc.last = p
		c.pools = append(c.pools, pc)
		c.tel.Pooler = map[string]int64{}
	}
	c.measuring, c.windowOpen = true, true
}

// addTo adds d to *m, making it when needed.
func addTo(m *map[string]int64, d map[string]int64) {
	if d == nil {
		return
	}
	if *m == nil {
		*m = make(map[string]int64, len(d))
	}
	for k, v := range d {
		(*m)[k] += v
	}
}

// poolerRestarted is in the Gap of a sample in which the pooler
// restarted; the job learns of it from the pooler.Restart event.
const poolerRestarted = "pooler restarted"

// poolConsole is one pooler's admin console (the run's, which the job's
// pooler.Watcher opened) and its last reading.
type poolConsole struct {
	admin pooler.Admin
	name  string // "the pooler", or "pooler2" in a fleet
	last  map[string]int64
	at    float64 // when last was read
	lost  float64 // when the console last failed, -1 if not
	// stuck: its last reading timed out (the pooler is stopped or hung,
	// not down): the final reading does not wait for it again.
	stuck bool
}

// poolDelta is pc's pooler's change since its last reading. SHOW STATS
// totals that went down mean the pooler restarted: the change is then its
// new incarnation's totals, flagged, so the window's totals are the sum
// of each incarnation's.
func (c *Collector) poolDelta(pc *poolConsole, p map[string]int64) map[string]int64 {
	restarted := false
	for k, v := range pc.last {
		restarted = restarted || p[k] < v
	}
	last := pc.last
	if restarted {
		c.note("%s restarted between %.1f s and %.1f s: its counters started again from zero; the pooler totals add up its incarnations' and leave out what the old one counted after %.1f s", pc.name, pc.at, c.elapsed(), pc.at)
		c.gap = append(c.gap, poolerRestarted)
		c.o.Poolers.Restarted(pooler.Restart{Pooler: pc.name, After: pc.at, By: c.elapsed()})
		last = nil
	}
	pc.last, pc.at = p, c.elapsed()
	return subtract(p, last)
}

// readPool reads the poolers' counters and returns the sum of their
// changes, flagging a console that cannot be reached (once per outage);
// nil when none could be read. final skips the consoles that are stuck.
func (c *Collector) readPool(ctx context.Context, final bool) map[string]int64 {
	var sum map[string]int64
	for _, pc := range c.pools {
		if final && pc.stuck {
			continue
		}
		p, err := pooler.Stats(ctx, pc.admin)
		pc.stuck = target.Classify(err) == errclass.Timeout
		if err != nil {
			if pc.lost < 0 {
				pc.lost = c.elapsed()
				c.note("the console of %s could not be read at %.1f s: SHOW STATS: %s", pc.name, pc.lost, errclass.FirstLine(err))
			}
			c.gap = append(c.gap, "pooler console unreachable")
			continue
		}
		pc.lost = -1
		addTo(&sum, c.poolDelta(pc, p))
	}
	return sum
}

// sampleAtFinish is the gap of a sample whose interval's server and
// pooler readings were left to the final ones: the run ended while the
// sampler was behind.
const sampleAtFinish = "server counters in the final reading (the run ended before this sample's)"

// tick takes an interval's sample; server says whether to read the
// server's and the poolers' counters for it, or leave them to the final
// readings.
func (c *Collector) tick(ctx context.Context, elapsed float64, server bool) {
	h := c.host.read()
	s := result.Sample{ElapsedS: elapsed, ClientRSSMB: h.rssMB}
	s.ClientCPU, s.MachineCPU = usage(c.lastHost, h)
	c.lastHost = h
	dbToo := c.o.Server.URL != "" && c.db != ""
	if !server && (dbToo || len(c.pools) > 0) {
		c.gap = append(c.gap, sampleAtFinish)
	}
	if server && dbToo {
		if now, own, ok := c.readDB(ctx); ok {
			since := c.dbAt
			s.Database = c.dbDelta(now, own)
			s.SpanS = c.dbAt - since
			addTo(&c.tel.Database, s.Database)
		} else {
			c.gap = append(c.gap, "no database session")
		}
	}
	s.Waits = c.waits.takeInterval()
	if server && len(c.pools) > 0 {
		s.Pooler = c.readPool(ctx, false)
		addTo(&c.tel.Pooler, s.Pooler)
	}
	s.Gap = c.takeGap("")
	c.tel.Series = append(c.tel.Series, s)
}

// takeGap adds what the sample lacks to gap and starts anew.
func (c *Collector) takeGap(gap string) string {
	parts := c.gap
	if gap != "" {
		parts = append([]string{gap}, parts...)
	}
	c.gap = nil
	return strings.Join(parts, "; ")
}

// intoLast adds what was counted after the last interval to it.
func (c *Collector) intoLast(d map[string]int64, pooler bool) {
	if n := len(c.tel.Series); n > 0 {
		last := &c.tel.Series[n-1]
		if pooler {
			addTo(&last.Pooler, d)
		} else {
			addTo(&last.Database, d)
		}
		if len(c.gap) > 0 {
			last.Gap = c.takeGap(last.Gap)
		}
	}
}

func (c *Collector) finish(ctx context.Context) {
	if n := c.dropped.Load(); n > 0 {
		c.note("%d interval samples were dropped (the sampler fell behind): the series has gaps", n)
	}
	if !c.measuring {
		c.measure(ctx) // stopped before the window: an empty one
	}
	if c.db != "" {
		qctx, cancel := context.WithTimeout(ctx, queryTimeout+c.o.FlushWait)
		defer cancel()
		defer func() {
			if c.conn != nil {
				c.conn.Close(ctx)
			}
		}()
		// The run's sessions publish their last counters as they exit.
		if !c.lostStuck {
			c.lastTry = time.Time{} // a lost session gets one more try, of queryTimeout
		}
		octx, cancel := context.WithTimeout(qctx, queryTimeout)
		reopened := c.connected(octx)
		cancel()
		if reopened {
			if left := c.othersGone(qctx); left > 0 {
				c.note("%d other sessions stayed connected to database %s after the run (a pooler's, or another client's): their last second of work may be missing from the database counters (PostgreSQL publishes an idle session's statistics after 10 s)", left, c.db)
			}
		}
		if now, own, ok := c.readDB(qctx); ok {
			since := c.dbAt
			d := c.dbDelta(now, own)
			addTo(&c.tel.Database, d)
			c.intoLast(d, false)
			if n := len(c.tel.Series); n > 0 && c.tel.Series[n-1].Database != nil {
				c.tel.Series[n-1].SpanS += c.dbAt - since // its rate is over the time it covers
			}
		}
		if c.conn == nil && c.lost >= 0 {
			c.note("database telemetry lost its session at %.1f s (%s) and could not open it again: the database counters stop there", c.lost, c.lostWhy)
		}
		if c.conn != nil && c.stmts && c.stmts0 != nil {
			after, err := c.snapshot(qctx)
			if err != nil {
				c.note("no statement times: %s", errclass.FirstLine(err))
			} else {
				c.tel.Statements = statementDeltas(c.stmts0, after)
				if n := untaggedNote(c.pgNum, c.tel.Statements); n != "" {
					c.note("%s", n)
				}
			}
		}
	}
	if c.o.Server.URL != "" && c.waits.samples > 0 {
		c.tel.Waits = c.waits.summary(float64(c.o.Sample) / float64(time.Millisecond))
	}
	if len(c.pools) > 0 {
		if d := c.readPool(ctx, true); d != nil {
			addTo(&c.tel.Pooler, d)
			c.intoLast(d, true)
		}
	}
}
