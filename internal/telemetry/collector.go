package telemetry

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// Options says what a Collector watches.
type Options struct {
	// ServerURL is the run database on the server itself, never through a
	// pooler; "" for an embedded engine: then only txnbench's and the
	// machine's CPU are sampled.
	ServerURL string
	// PoolerAdmin is a pooler's admin console (SHOW STATS), "" without one.
	PoolerAdmin string
	// Sample is how often pg_stat_activity is sampled for wait events.
	Sample time.Duration
	// StatementsFix is the Note given when pg_stat_statements is missing
	// from the run database; "" gives the generic fix.
	StatementsFix string
	// FlushWait bounds how long Finish waits for the run's sessions to end
	// (their statistics reach pg_stat_database as they exit); 0 is 3 s.
	FlushWait time.Duration
}

// The telemetry session's name in pg_stat_activity.
const appName = "txnbench-telemetry"

// Collector samples beside one run. Measure, Tick and Finish may be called
// from any goroutine; the sampling happens on the Collector's own.
type Collector struct {
	o     Options
	conn  target.Conn // nil: no server session
	db    string      // the run database's name
	pgNum int         // server_version_num
	stmts bool        // pg_stat_statements is readable
	host  *hostReader

	reqs chan request
	done chan struct{}

	// owned by the sampling goroutine
	tel       result.Telemetry
	measuring bool
	lastHost  hostReading
	base, cur dbReading
	haveBase  bool
	lastDB    dbReading
	stmts0    map[string]stmt
	pool0     map[string]int64
	lastPool  map[string]int64
	waits     *waitCounter
	history   *waitHistory // per session, for ExplainSlowOps
	own       int64        // the session's own transactions since the baseline
	ownLast   int64        // ... at the last interval
	dropped   atomic.Int64 // ticks that found the queue full
}

type reqKind int

const (
	reqMeasure reqKind = iota
	reqTick
	reqFinish
	reqNotes
)

type request struct {
	kind    reqKind
	elapsed float64
	notes   []string
	reply   chan struct{}
}

// Start opens the telemetry session (when there is a server) and starts
// the sampler. It never fails: what it cannot do becomes a Note.
func Start(ctx context.Context, o Options) *Collector {
	if o.Sample <= 0 {
		o.Sample = 100 * time.Millisecond
	}
	if o.FlushWait <= 0 {
		o.FlushWait = 3 * time.Second
	}
	c := &Collector{o: o, host: newHostReader(), reqs: make(chan request, 1024), done: make(chan struct{}), waits: newWaitCounter(), history: newWaitHistory()}
	if o.ServerURL != "" {
		c.open(ctx)
	}
	go c.loop()
	return c
}

// open connects to the server and finds out what it offers.
func (c *Collector) open(ctx context.Context) {
	url := withAppName(c.o.ServerURL)
	t, err := target.Open(ctx, url)
	if err != nil {
		c.note("no database telemetry: %v", err)
		return
	}
	defer t.Close() // its sessions live on
	conn, err := t.Connect(ctx)
	if err != nil {
		c.note("no database telemetry: %v", target.ConnectError(url, err))
		return
	}
	var num string
	if err := scanOne(ctx, conn, ownTag+"SELECT current_database(), current_setting('server_version_num')", nil, &c.db, &num); err != nil {
		conn.Close(ctx)
		c.note("no database telemetry: reading the database name: %v", err)
		return
	}
	fmt.Sscan(num, &c.pgNum)
	c.conn = conn
	var n int64
	switch err := scanOne(ctx, conn, hasStatementsQuery, nil, &n); {
	case err != nil:
		c.note("no statement times: looking for pg_stat_statements: %v", err)
	case n == 0:
		c.note("%s", c.statementsFix())
	default:
		if _, err := snapshotStatements(ctx, conn, c.db); err != nil {
			c.note("no statement times: pg_stat_statements cannot be read: %s: %s", firstLine(err.Error()), c.statementsFix())
		} else {
			c.stmts = true
		}
	}
}

func (c *Collector) statementsFix() string {
	if c.o.StatementsFix != "" {
		return c.o.StatementsFix
	}
	return fmt.Sprintf("no statement times: pg_stat_statements is not installed in database %s: add pg_stat_statements to shared_preload_libraries (restart), then CREATE EXTENSION pg_stat_statements in it", c.db)
}

// withAppName names the telemetry session in pg_stat_activity.
func withAppName(u string) string {
	if strings.Contains(u, "application_name=") {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "application_name=" + appName
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
	if c.conn != nil {
		tk := time.NewTicker(c.o.Sample)
		defer tk.Stop()
		poll = tk.C
	}
	ctx := context.Background()
	var agg, pids string
	for {
		select {
		case <-poll:
			if !c.measuring || c.conn == nil {
				continue
			}
			at := time.Now()
			if err := scanOne(ctx, c.conn, waitsQuery, []any{c.db}, &agg, &pids); err != nil {
				c.serverFailed("sampling pg_stat_activity", err)
				continue
			}
			c.own++
			c.waits.add(agg)
			c.history.add(at, pids)
		case r := <-c.reqs:
			switch r.kind {
			case reqMeasure:
				c.measure(ctx)
			case reqTick:
				if c.measuring {
					c.tick(ctx, r.elapsed)
				}
			case reqNotes:
				c.tel.Notes = append(c.tel.Notes, r.notes...)
			case reqFinish:
				c.finish(ctx)
				close(r.reply)
				return
			}
			if r.reply != nil {
				close(r.reply)
			}
		}
	}
}

// serverFailed drops the server session after an error: the run goes on
// with client and machine telemetry.
func (c *Collector) serverFailed(what string, err error) {
	c.note("database telemetry stopped: %s: %s", what, firstLine(err.Error()))
	c.conn.Close(context.Background())
	c.conn = nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// flushOwn makes the server publish the telemetry session's own counters
// (PostgreSQL 15 and later publish a session's statistics at most once a
// second, unless asked), so the transactions it subtracts are the ones
// counted.
func (c *Collector) flushOwn(ctx context.Context) {
	if c.conn == nil || c.pgNum < 150000 {
		return
	}
	var s string
	if err := scanOne(ctx, c.conn, ownTag+"SELECT pg_stat_force_next_flush()::text", nil, &s); err == nil {
		c.own++
	}
}

func (c *Collector) measure(ctx context.Context) {
	c.lastHost = c.host.read()
	if c.conn != nil {
		c.flushOwn(ctx)
		if err := readDB(ctx, c.conn, c.db, &c.base); err != nil {
			c.serverFailed("reading pg_stat_database", err)
		} else {
			c.haveBase, c.lastDB, c.own, c.ownLast = true, c.base, 1, 0
		}
	}
	if c.conn != nil && c.stmts {
		s, err := snapshotStatements(ctx, c.conn, c.db)
		if err != nil {
			c.note("no statement times: %s", firstLine(err.Error()))
			c.stmts = false
		} else {
			c.stmts0 = s
			c.own++
		}
	}
	if c.o.PoolerAdmin != "" {
		p, err := PoolerStats(ctx, c.o.PoolerAdmin)
		if err != nil {
			c.note("no pooler statistics: SHOW STATS: %s", firstLine(err.Error()))
			c.o.PoolerAdmin = ""
		} else {
			c.pool0, c.lastPool = p, p
		}
	}
	c.measuring = true
}

func (c *Collector) tick(ctx context.Context, elapsed float64) {
	h := c.host.read()
	s := result.Sample{ElapsedS: elapsed, ClientRSSMB: h.rssMB}
	s.ClientCPU, s.MachineCPU = usage(c.lastHost, h)
	c.lastHost = h
	if c.conn != nil && c.haveBase {
		var now dbReading
		if err := readDB(ctx, c.conn, c.db, &now); err != nil {
			c.serverFailed("reading pg_stat_database", err)
		} else {
			s.Database = now.delta(&c.lastDB)
			s.Database["xact_commit"] -= c.own - c.ownLast
			c.lastDB, c.ownLast = now, c.own
			c.own++
		}
	}
	s.Waits = c.waits.takeInterval()
	if c.o.PoolerAdmin != "" {
		if p, err := PoolerStats(ctx, c.o.PoolerAdmin); err == nil {
			s.Pooler = subtract(p, c.lastPool)
			c.lastPool = p
		}
	}
	c.tel.Series = append(c.tel.Series, s)
}

func (c *Collector) finish(ctx context.Context) {
	if n := c.dropped.Load(); n > 0 {
		c.note("%d interval samples were dropped (the sampler fell behind): the series has gaps", n)
	}
	if !c.measuring {
		c.measure(ctx) // stopped before the window: an empty one
	}
	if c.conn != nil {
		defer func() {
			if c.conn != nil {
				c.conn.Close(ctx)
			}
		}()
		// The run's sessions publish their last counters as they exit.
		deadline := time.Now().Add(c.o.FlushWait)
		var left int64
		for {
			n, err := otherBackends(ctx, c.conn, c.db)
			c.own++
			if err != nil || n == 0 || time.Now().After(deadline) {
				left = n
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if left > 0 {
			c.note("%d other sessions stayed connected to database %s after the run (a pooler's, or another client's): their last second of work may be missing from the database counters (PostgreSQL publishes an idle session's statistics after 10 s)", left, c.db)
		}
	}
	if c.conn != nil && c.haveBase {
		c.flushOwn(ctx)
		var end dbReading
		if err := readDB(ctx, c.conn, c.db, &end); err != nil {
			c.serverFailed("reading pg_stat_database", err)
		} else {
			c.tel.Database = end.delta(&c.base)
			c.tel.Database["xact_commit"] -= c.own
			// What was published after the last interval belongs to it.
			if n := len(c.tel.Series); n > 0 {
				last := &c.tel.Series[n-1]
				if last.Database == nil {
					last.Database = map[string]int64{}
				}
				for k, v := range end.delta(&c.lastDB) {
					last.Database[k] += v
				}
				last.Database["xact_commit"] -= c.own - c.ownLast
			}
		}
	}
	if c.conn != nil && c.stmts {
		after, err := snapshotStatements(ctx, c.conn, c.db)
		if err != nil {
			c.note("no statement times: %s", firstLine(err.Error()))
		} else {
			c.tel.Statements = statementDeltas(c.stmts0, after)
		}
	}
	if c.o.ServerURL != "" && c.waits.samples > 0 {
		c.tel.Waits = c.waits.summary(float64(c.o.Sample) / float64(time.Millisecond))
	}
	if c.o.PoolerAdmin != "" {
		if p, err := PoolerStats(ctx, c.o.PoolerAdmin); err == nil {
			c.tel.Pooler = subtract(p, c.pool0)
			if n := len(c.tel.Series); n > 0 {
				last := &c.tel.Series[n-1]
				if last.Pooler == nil {
					last.Pooler = map[string]int64{}
				}
				for k, v := range subtract(p, c.lastPool) {
					last.Pooler[k] += v
				}
			}
		} else {
			c.note("no pooler statistics at the end: SHOW STATS: %s", firstLine(err.Error()))
		}
	}
}
