package job

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// telemetrySessions counts the telemetry sessions connected to the
// server at url, as the run goes.
func telemetrySessions(t *testing.T, url string) int64 {
	t.Helper()
	ctx := context.Background()
	tg, err := target.OpenURL(ctx, url)
	if err != nil {
		t.Error(err)
		return -1
	}
	defer tg.Close()
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Error(err)
		return -1
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'txnbench-telemetry'")
	if err != nil {
		t.Error(err)
		return -1
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		rows.Scan(&n)
	}
	return n
}

// seriesAligned checks that Series lines up with the intervals.
func seriesAligned(t *testing.T, r *result.Result) {
	t.Helper()
	tel := r.Telemetry
	if len(tel.Series) != len(r.Intervals) || len(tel.Series) == 0 {
		t.Fatalf("%d telemetry samples for %d intervals", len(tel.Series), len(r.Intervals))
	}
	for i, s := range tel.Series {
		if s.ElapsedS != r.Intervals[i].ElapsedS {
			t.Errorf("sample %d at %.3f s, interval at %.3f s", i, s.ElapsedS, r.Intervals[i].ElapsedS)
		}
		if s.ClientCPU < 0 || s.ClientRSSMB <= 0 || s.MachineCPU < 0 || s.MachineCPU > 1 {
			t.Errorf("sample %d: client %.3f cores, %.1f MB, machine %.3f", i, s.ClientCPU, s.ClientRSSMB, s.MachineCPU)
		}
	}
	// The server's counters cover the time from one reading to the next;
	// the last sample's up to the final reading, after the window. A
	// reading taken late (the machine busy) shortens the span after it by
	// as much: up to a fifth of the interval is allowed, far from what a
	// span taken over another stretch (the grace alone, or half the
	// interval) would show.
	var span float64
	for i, s := range tel.Series {
		if s.Database != nil && s.SpanS <= 0 {
			t.Errorf("sample %d: database counters over %.3f s", i, s.SpanS)
		}
		span += s.SpanS
	}
	if last := tel.Series[len(tel.Series)-1]; last.Database != nil && (last.SpanS < 0.8*r.Intervals[len(r.Intervals)-1].LengthS || span < r.MeasuredS-0.2*r.Intervals[0].LengthS) {
		t.Errorf("the last sample's counters cover %.3f s, its interval %.3f s; all %.3f s for a window of %.3f s", last.SpanS, r.Intervals[len(r.Intervals)-1].LengthS, span, r.MeasuredS)
	}
}

// TestTelemetryTrainEvents: a short train-events run on temp-postgres sees
// the database's commits and tuples, its waits, and each op's statements,
// whose server time is below the op's latency (think time is inside the
// transactions).
func TestTelemetryTrainEvents(t *testing.T) {
	testutil.NeedPostgres(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 4, Duration: 2 * time.Second, Progress: 500 * time.Millisecond},
		"--think-min", "5ms", "--think-max", "10ms")
	s.Telemetry.Sample = 20 * time.Millisecond
	var sessions []int64
	var mu sync.Mutex
	var url string
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnTick: func(result.Interval) {
		mu.Lock()
		defer mu.Unlock()
		if len(sessions) == 0 {
			sessions = append(sessions, telemetrySessions(t, url))
		}
	}}}
	db := sequentialTempPostgres(t, s)
	url = db.Cluster().URL()
	r := runJob(t, s, db)
	if len(sessions) != 1 || sessions[0] != 1 {
		t.Errorf("telemetry sessions during the run: %v, want one", sessions)
	}
	tel := r.Telemetry
	if tel == nil {
		t.Fatal("no telemetry")
	}
	if len(tel.Notes) != 0 {
		t.Errorf("notes: %q", tel.Notes)
	}
	d := tel.Database
	var txns int64
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			txns += o.Count
		}
	}
	// Every transaction of the window committed once, plus the clients'
	// statement preparations; not the telemetry session's own.
	if d["xact_commit"] < txns || d["xact_commit"] > txns+100 || d["tup_inserted"] <= 0 || d["tup_deleted"] <= 0 || d["blks_hit"] <= 0 || d["wal_bytes"] <= 0 {
		t.Errorf("database deltas %v for %d transactions", d, txns)
	}
	w := tel.Waits
	if w == nil || w.Samples < 20 || w.ActiveSamples <= 0 || len(w.Classes) == 0 || len(w.Events) == 0 {
		t.Fatalf("waits %+v", w)
	}
	var share float64
	var n int64
	for _, c := range w.Classes {
		share += c.Share
		n += c.Samples
	}
	if math.Abs(share-1) > 1e-9 || n != w.ActiveSamples {
		t.Errorf("class shares sum to %g over %d of %d samples", share, n, w.ActiveSamples)
	}
	ops := map[string]int{}
	for _, st := range tel.Statements {
		if strings.Contains(st.Query, "txnbench telemetry") {
			t.Errorf("the telemetry session's own statement is listed: %s", st.Query)
		}
		ops[st.Op]++
	}
	for _, op := range []string{"add", "process", "archive"} {
		if ops[op] < 2 {
			t.Errorf("%d statements of %s in %v", ops[op], op, ops)
		}
		o := r.Op(op)
		if o.ServerMS <= 0 || o.ServerMS >= o.Mean {
			t.Errorf("%s: server %.3f ms, mean latency %.3f ms", op, o.ServerMS, o.Mean)
		}
	}
	seriesAligned(t, r)
	var commits int64
	for _, smp := range tel.Series {
		commits += smp.Database["xact_commit"]
	}
	if commits != d["xact_commit"] {
		t.Errorf("the series holds %d commits, the window %d", commits, d["xact_commit"])
	}
}

// TestTelemetryLockWaits holds a lock the clients need for a while: the
// waits show the Lock class and lock waiters.
func TestTelemetryLockWaits(t *testing.T) {
	testutil.NeedPostgres(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 4, Duration: 2 * time.Second, Progress: 500 * time.Millisecond})
	s.Telemetry.Sample = 20 * time.Millisecond
	ctx := context.Background()
	db := sequentialTempPostgres(t, s)
	var wg sync.WaitGroup
	defer wg.Wait()
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnStart: func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := withConn(ctx, db, func(c target.Conn) error {
				if err := c.Begin(ctx); err != nil {
					return err
				}
				if _, err := c.Exec(ctx, "LOCK TABLE events_jsonb_status IN ACCESS EXCLUSIVE MODE"); err != nil {
					return err
				}
				time.Sleep(700 * time.Millisecond)
				return c.Commit(ctx)
			}); err != nil {
				t.Error(err)
			}
		}()
	}}}
	r := runJob(t, s, db)
	w := r.Telemetry.Waits
	if w == nil || w.LockWaitSamples == 0 || w.MaxLockWaiters < 2 {
		t.Fatalf("waits %+v: want lock waits", w)
	}
	found := false
	for _, c := range w.Classes {
		found = found || c.Name == "Lock" && c.Share > 0
	}
	for _, e := range w.Events {
		found = found && (e.Name != "Lock:relation" || e.Samples > 0)
	}
	if !found {
		t.Errorf("no Lock class in %+v", w.Classes)
	}
	var locks int64
	for _, smp := range r.Telemetry.Series {
		locks += smp.Waits["Lock"]
	}
	if locks != w.LockWaitSamples {
		t.Errorf("the series holds %d lock samples, the window %d", locks, w.LockWaitSamples)
	}
}

// TestTelemetryOff: no telemetry, and no session of its own.
func TestTelemetryOff(t *testing.T) {
	testutil.NeedPostgres(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 2, Duration: time.Second, Progress: 300 * time.Millisecond})
	s.Telemetry.Off = true
	var seen []int64
	var url string
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnTick: func(result.Interval) { seen = append(seen, telemetrySessions(t, url)) }}}
	db := sequentialTempPostgres(t, s)
	url = db.Cluster().URL()
	r := runJob(t, s, db)
	if r.Telemetry != nil {
		t.Errorf("telemetry %+v with --telemetry off", r.Telemetry)
	}
	for _, o := range r.Ops {
		if o.ServerMS != 0 {
			t.Errorf("%s: server time %.3f with telemetry off", o.Name, o.ServerMS)
		}
	}
	for _, n := range seen {
		if n != 0 {
			t.Errorf("telemetry sessions during the run: %v, want none", seen)
			break
		}
	}
	if len(seen) == 0 {
		t.Error("no ticks")
	}
}

// TestTelemetrySQLite: an embedded engine has no server to ask: only the
// client's and the machine's series.
func TestTelemetrySQLite(t *testing.T) {
	s := spec(t, "", runner.Config{Clients: 2, Duration: time.Second, Progress: 300 * time.Millisecond})
	r := run(t, s)
	tel := r.Telemetry
	if tel == nil {
		t.Fatal("no telemetry on SQLite")
	}
	if tel.Database != nil || tel.Waits != nil || tel.Statements != nil || tel.Pooler != nil || len(tel.Notes) != 0 {
		t.Errorf("SQLite telemetry %+v: want the client and machine series only", tel)
	}
	seriesAligned(t, r)
	var cpu float64
	for _, s := range tel.Series {
		cpu += s.ClientCPU
		if s.Database != nil || s.Waits != nil {
			t.Errorf("sample %+v has server data", s)
		}
	}
	if cpu <= 0 {
		t.Error("txnbench used no CPU running SQLite")
	}
}

// TestTelemetryPgBouncer: through a throwaway PgBouncer the pooler's
// counters are sampled and the database's are read on the server itself.
func TestTelemetryPgBouncer(t *testing.T) {
	testutil.NeedPgBouncer(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 6, Duration: 2 * time.Second, Progress: 500 * time.Millisecond})
	s.DB.Via = viaPgBouncer(target.PgBouncer{Mode: "transaction", Size: 3})
	r := runJob(t, s, sequentialTempPostgres(t, s))
	tel := r.Telemetry
	if tel == nil || tel.Pooler["total_xact_count"] <= 0 || tel.Database["xact_commit"] <= 0 {
		t.Fatalf("telemetry %+v", tel)
	}
	var xacts int64
	for _, smp := range tel.Series {
		xacts += smp.Pooler["total_xact_count"]
	}
	if xacts != tel.Pooler["total_xact_count"] {
		t.Errorf("the series holds %d pooler transactions, the window %d", xacts, tel.Pooler["total_xact_count"])
	}
	if r.Op("add").ServerMS <= 0 {
		t.Errorf("no server time for add through PgBouncer: %q", tel.Notes)
	}
	seriesAligned(t, r)
}

// TestTelemetryURLWithoutStatements: on a server given by URL txnbench
// never installs pg_stat_statements: without it the database counters and
// waits are there, and a note names the fix.
func TestTelemetryURLWithoutStatements(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	s := spec(t, dbURL, runner.Config{Clients: 2, Duration: time.Second, Progress: 500 * time.Millisecond})
	r := run(t, s)
	tel := r.Telemetry
	if tel == nil || tel.Database["xact_commit"] <= 0 || tel.Waits == nil || tel.Statements != nil {
		t.Fatalf("telemetry %+v", tel)
	}
	if len(tel.Notes) != 1 || !strings.Contains(tel.Notes[0], "CREATE EXTENSION pg_stat_statements") || !strings.Contains(tel.Notes[0], "shared_preload_libraries") {
		t.Errorf("notes %q: want one naming the fix", tel.Notes)
	}
	if r.Op("add").ServerMS != 0 {
		t.Error("server time without pg_stat_statements")
	}
}
