package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Shard is a run split across processes, on any number of machines, that
// drive one database (txnbench run --shard I/N): this process's part is
// Spec.Runner.Shard. The shards meet in the run table (txnbench_shards)
// in the target database: shard 0 creates the schema and loads the data
// while the others wait for it, each registers (with its clock's skew
// against the server's), all start their measured window at one instant,
// and each records its books (workload.Ledger) when it ends, so the last
// to finish checks the invariants of the whole run.
type Shard struct {
	RunID string
	// Wait is how long a shard waits for shard 0's load and for the
	// others to register.
	Wait time.Duration
	// Settings stands for the whole run's settings (clients, duration,
	// rate, seed, the workload's flags, ...): every shard of a run must
	// have the same, or its part would not be the run's.
	Settings string
}

// runTable is the run table: one row per shard of each split run.
const runTable = "txnbench_shards"

// shardMargin is how long after the last shard registers the run
// starts: time for every shard to see that it did.
const shardMargin = time.Second

// shardPoll is how often a shard looks at the run table while it waits.
const shardPoll = 50 * time.Millisecond

// ErrRunIDUsed ends the message of a shard refused because its run id
// already ran; the command line treats it as a usage error.
var ErrRunIDUsed = errors.New("give each run its own --run-id (or --seed)")

// ErrNoRun ends the message of a check of a run id the database has no
// record of; the command line treats it as a usage error.
var ErrNoRun = errors.New("give the run id a shard printed as it started")

// ErrOtherSettings ends the message of a shard refused because another
// shard of its run was started with other settings; the command line
// treats it as a usage error.
var ErrOtherSettings = errors.New("start every shard with the same flags but --shard, under a new --run-id")

// refused is the state of a shard refused for its settings: the shards
// waiting for it stop waiting.
const refused = "refused"

func (s Spec) sharded() bool { return s.Runner.Shard.Sharded() }

// shardName is "shard I of N of run ID", for messages.
func (s Spec) shardName() string {
	return fmt.Sprintf("shard %d of %d of run %s", s.Runner.Shard.Index, s.Runner.Shard.Count, s.Shard.RunID)
}

// awaitLoad comes before Init in a split run: shard 0 makes the run table
// (it alone creates the schema and loads the data, and registers when it
// has), the others wait until shard 0 has registered.
func awaitLoad(ctx context.Context, s Spec, db *Database) error {
	if db.Dialect().Embedded {
		return fmt.Errorf("%s: a split run needs a database server every shard reaches, not %s: give --db postgres://", s.shardName(), db.Dialect().Name)
	}
	return withConn(ctx, db, func(c target.Conn) error {
		if s.Runner.Shard.Index == 0 {
			return lockedRunTable(ctx, s, db, c)
		}
		said := false
		return poll(ctx, s.Shard.Wait, func(ctx context.Context) (bool, error) {
			var n int64
			err := target.QueryRow(ctx, c, "SELECT count(*) FROM "+runTable+" WHERE run_id = $1 AND shard = 0", []any{s.Shard.RunID}, &n)
			if target.IsUndefinedTable(err) {
				err = nil
			}
			if err == nil && n == 0 && !said {
				s.log(fmt.Sprintf("%s: waiting for shard 0 to create the %s schema and load its data (at most %s)", s.shardName(), s.Name, s.Shard.Wait))
				said = true
			}
			return n > 0, err
		}, func() error {
			return fmt.Errorf("%s: shard 0 did not load the data within %s: start shard 0 with the same --run-id, or raise --shard-wait", s.shardName(), s.Shard.Wait)
		})
	})
}

// lockedRunTable makes the run table, one txnbench at a time.
func lockedRunTable(ctx context.Context, s Spec, db *Database, c target.Conn) error {
	unlock, err := lockSchema(ctx, Spec{Name: runTable, Log: s.Log}, db, c)
	if err != nil {
		return err
	}
	defer unlock()
	return ensureRunTable(ctx, c)
}

// ensureRunTable makes the run table, and adds the columns an older
// txnbench's lacks (altered only then: the table may be another role's).
func ensureRunTable(ctx context.Context, c target.Conn) error {
	_, err := c.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+runTable+` (
	run_id TEXT NOT NULL, shard INT NOT NULL, shards INT NOT NULL, host TEXT NOT NULL,
	workload TEXT NOT NULL, args TEXT NOT NULL,
	registered_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(), skew_ms DOUBLE PRECISION NOT NULL,
	state TEXT NOT NULL, finished_at TIMESTAMPTZ, ledger TEXT,
	PRIMARY KEY (run_id, shard))`)
	for _, col := range []struct{ name, def string }{
		{"settings", "TEXT NOT NULL DEFAULT ''"},
		{"tables", "TEXT NOT NULL DEFAULT ''"}, // what the run writes (Spec.tables)
		{"began_at", "TIMESTAMPTZ"},            // before the run's Start counted anything
		{"beat_at", "TIMESTAMPTZ"},             // its last heartbeat
	} {
		var has int64
		if err == nil {
			err = target.QueryRow(ctx, c, "SELECT count(*) FROM pg_attribute WHERE attrelid = '"+runTable+"'::regclass AND attname = $1 AND NOT attisdropped", []any{col.name}, &has)
		}
		if err == nil && has == 0 {
			_, err = c.Exec(ctx, `ALTER TABLE `+runTable+` ADD COLUMN `+col.name+` `+col.def)
		}
	}
	if err != nil {
		return fmt.Errorf("creating the run table %s: %w", runTable, err)
	}
	return nil
}

// poll calls done every shardPoll until it reports true or fails, or
// timeout passes (then the error late makes). Each call of done has
// probeWait: a server that stops answering fails the wait.
func poll(ctx context.Context, timeout time.Duration, done func(context.Context) (bool, error), late func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		dctx, cancel := context.WithTimeout(ctx, probeWait)
		ok, err := done(dctx)
		cancel()
		if err != nil {
			return fmt.Errorf("reading the run table %s: %w", runTable, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return late()
		}
		if err := runner.Sleep(ctx, shardPoll); err != nil {
			return err
		}
	}
}

// registerShard records this shard in the run table, with its clock's
// skew against the server's, within probeWait.
func registerShard(ctx context.Context, s Spec, db *Database, began time.Time) (result.Shard, error) {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	host, _ := os.Hostname()
	sh := result.Shard{RunID: s.Shard.RunID, Index: s.Runner.Shard.Index, Count: s.Runner.Shard.Count, Host: host}
	args, _ := json.Marshal(maskAll(s.Args))
	err := withConn(ctx, db, func(c target.Conn) error {
		var n int64
		if err := target.QueryRow(ctx, c, "SELECT count(*) FROM "+runTable+" WHERE run_id = $1 AND shard = $2", []any{sh.RunID, sh.Index}, &n); err != nil {
			return fmt.Errorf("reading the run table %s: %w", runTable, err)
		}
		if n > 0 {
			return fmt.Errorf("%s is already registered in %s (run before, or started twice): %w", s.shardName(), runTable, ErrRunIDUsed)
		}
		// A shard registered with other settings: this one is refused,
		// and registers so, so that the others stop waiting for it.
		other := int64(-1)
		err := target.QueryRow(ctx, c, "SELECT coalesce(min(shard), -1) FROM "+runTable+" WHERE run_id = $1 AND state <> $2 AND (settings <> $3 OR shards <> $4 OR workload <> $5)",
			[]any{sh.RunID, refused, s.Shard.Settings, sh.Count, s.Name}, &other)
		if err != nil {
			return fmt.Errorf("reading the run table %s: %w", runTable, err)
		}
		state := "registered"
		if other >= 0 {
			state = refused
		}
		skew, rtt, err := measureSkew(ctx, c)
		if err != nil {
			return err
		}
		sh.SkewMS, sh.RTTMS = ms(skew), ms(rtt)
		_, err = c.Exec(ctx, "INSERT INTO "+runTable+" (run_id, shard, shards, host, workload, args, skew_ms, state, settings, tables, began_at, beat_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp())",
			sh.RunID, sh.Index, sh.Count, host, s.Name, string(args), sh.SkewMS, state, s.Shard.Settings, s.tables(), began)
		if err != nil {
			return fmt.Errorf("registering %s in %s: %w", s.shardName(), runTable, err)
		}
		if other >= 0 {
			return fmt.Errorf("%s: shard %d of this run id was started with other settings (the workload, --clients, --duration, --rate, --seed, the workload's flags, ...): %w", s.shardName(), other, ErrOtherSettings)
		}
		return nil
	})
	return sh, err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measureSkew is the server's clock minus this host's, from the fastest
// of a few round trips (the server read its clock at their midpoint, to
// within half the round trip), and that round trip.
func measureSkew(ctx context.Context, c target.Conn) (skew, rtt time.Duration, err error) {
	for i := range 5 {
		var server time.Time
		t0 := time.Now()
		if err := target.QueryRow(ctx, c, "SELECT clock_timestamp()", nil, &server); err != nil {
			return 0, 0, fmt.Errorf("reading the server's clock: %w", err)
		}
		d := time.Since(t0)
		if i == 0 || d < rtt {
			rtt, skew = d, server.Sub(t0.Add(d/2))
		}
	}
	return skew, rtt, nil
}

// startTogether registers this shard, waits until every shard has, then
// until the instant they all start at: shardMargin after the last
// registered, on the server's clock, which each shard turns into its own
// with its skew. It comes after the workload's Start (so every shard has
// counted what the check starts from before any of them runs).
func startTogether(ctx context.Context, s Spec, db *Database, began time.Time) (result.Shard, error) {
	sh, err := registerShard(ctx, s, db, began)
	if err != nil {
		return sh, err
	}
	n := s.Runner.Shard.Count
	var got, bad int64
	var last time.Time
	err = withConn(ctx, db, func(c target.Conn) error {
		said := int64(-1)
		return poll(ctx, s.Shard.Wait, func(ctx context.Context) (bool, error) {
			err := target.QueryRow(ctx, c, "SELECT count(*), max(registered_at), coalesce(min(shard) FILTER (WHERE state = $2), -1) FROM "+runTable+" WHERE run_id = $1", []any{sh.RunID, refused}, &got, &last, &bad)
			if err == nil && got < int64(n) && got != said && bad < 0 {
				s.log(fmt.Sprintf("%s: %d of %d shards registered; waiting for the others (at most %s)", s.shardName(), got, n, s.Shard.Wait))
				said = got
			}
			return got >= int64(n) || bad >= 0, err
		}, func() error {
			return fmt.Errorf("%s: only %d of %d shards registered within %s: start every shard with the same --run-id, or raise --shard-wait", s.shardName(), got, n, s.Shard.Wait)
		})
	})
	if err == nil && bad >= 0 {
		err = fmt.Errorf("%s: shard %d was refused: it was started with other settings than this one: %w", s.shardName(), bad, ErrOtherSettings)
	}
	if err != nil {
		return sh, err
	}
	sh.Start = last.Add(shardMargin)
	local := sh.Start.Add(-time.Duration(sh.SkewMS * float64(time.Millisecond)))
	if err := runner.Sleep(ctx, time.Until(local)); err != nil {
		return sh, err
	}
	if late := time.Since(local); late > time.Millisecond {
		sh.LateMS = ms(late)
	}
	s.log(fmt.Sprintf("%s: all %d shards registered; started at %s (server clock; this host's is %+.1f ms off)", s.shardName(), n, sh.Start.UTC().Format("15:04:05.000"), -sh.SkewMS))
	return sh, nil
}

// finishShard stops m's heartbeat, records the end of this part of the
// run and its books in the run table, and reports whether the invariant
// check may cover the whole run from here: always for a workload without
// books (its check holds whoever ran what), and for one with books
// (workload.Ledger) when every shard of the run has finished (a whole run
// is its own only shard).
func finishShard(ctx context.Context, s Spec, c target.Conn, m *member) (whole bool, err error) {
	m.stop()
	_, err = c.Exec(ctx, "UPDATE "+runTable+" SET state = 'finished', finished_at = clock_timestamp(), ledger = $3 WHERE run_id = $1 AND shard = $2",
		m.runID, m.shard, s.books())
	if err != nil {
		return false, fmt.Errorf("recording the end of %s in %s: %w", m.name, runTable, err)
	}
	m.finished = true
	if _, ok := s.Workload.(workload.Ledger); !ok {
		return true, nil // its check holds whoever ran what
	}
	run, err := readRun(ctx, c, m.runID)
	if err != nil {
		return false, err
	}
	return run.unfinished(false, "") == "", nil
}

// books is s's workload's books (workload.Ledger) as the run table keeps
// them, "" for a workload without.
func (s Spec) books() string {
	l, ok := s.Workload.(workload.Ledger)
	if !ok {
		return ""
	}
	b, _ := json.Marshal(l.Ledger())
	return string(b)
}

// shardRow is one row of the run table: a shard of a split run, or a
// whole run (shard 0 of 1).
type shardRow struct {
	runID          string
	shard, shards  int
	host, state    string
	workload, args string
	registered     time.Time
	ledger         string
	began, ended   time.Time // ended: when it finished, or its last sign of life
	beat, now      time.Time // its last heartbeat, and the server's clock as read
}

// rowColumns are what scanRow reads, in its order.
const rowColumns = `run_id, shard, shards, host, state, workload, args, registered_at, coalesce(ledger, ''),
	coalesce(began_at, registered_at), coalesce(finished_at, clock_timestamp()), coalesce(beat_at, registered_at), clock_timestamp()`

// scanRow reads one row of rowColumns.
func scanRow(rows target.Rows) (shardRow, error) {
	var r shardRow
	err := rows.Scan(&r.runID, &r.shard, &r.shards, &r.host, &r.state, &r.workload, &r.args, &r.registered, &r.ledger, &r.began, &r.ended, &r.beat, &r.now)
	if r.killed() {
		r.ended = r.beat.Add(beatEvery)
	}
	return r, err
}

// killed reports whether r's process stopped without finishing: its
// heartbeat is older than beatStale.
func (r shardRow) killed() bool {
	return r.state != "finished" && r.state != refused && r.now.Sub(r.beat) > beatStale
}

// runRows are rows of the run table: one run's, by shard, or the runs
// that shared tables.
type runRows []shardRow

// readRows reads the run table's rows where cond holds (with args).
func readRows(ctx context.Context, c target.Conn, cond string, args ...any) (runRows, error) {
	rows, err := c.Query(ctx, "SELECT "+rowColumns+" FROM "+runTable+" WHERE "+cond+" ORDER BY run_id, shard", args...)
	if err != nil {
		return nil, fmt.Errorf("reading the run table %s: %w", runTable, err)
	}
	defer rows.Close()
	var run runRows
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("reading the run table %s: %w", runTable, err)
		}
		run = append(run, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the run table %s: %w", runTable, err)
	}
	return run, nil
}

// readRun reads the rows of run id.
func readRun(ctx context.Context, c target.Conn, id string) (runRows, error) {
	return readRows(ctx, c, "run_id = $1", id)
}

// unfinished says which shards have not finished (or never registered),
// "" when all have; with partial, shards that were killed count as
// finished (their books as far as their last heartbeat); hint follows a
// killed shard's mention otherwise.
func (run runRows) unfinished(partial bool, hint string) string {
	if len(run) == 0 {
		return "no shard registered"
	}
	var missing []string
	have := map[int]bool{}
	for _, r := range run {
		have[r.shard] = true
		switch {
		case r.state == "finished":
		case r.state == refused:
			missing = append(missing, fmt.Sprintf("shard %d (on %s) was refused: it was started with other settings", r.shard, r.host))
		case r.killed() && partial:
		case r.killed():
			missing = append(missing, fmt.Sprintf("shard %d (on %s) stopped without finishing (no heartbeat since %s: killed?%s)", r.shard, r.host, clock(r.beat), hint))
		default:
			missing = append(missing, fmt.Sprintf("shard %d (on %s) has not finished", r.shard, r.host))
		}
	}
	for i := range run[0].shards {
		if !have[i] {
			missing = append(missing, fmt.Sprintf("shard %d never registered", i))
		}
	}
	return strings.Join(missing, ", ")
}

// clock is t on the server's clock, for messages.
func clock(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }

// use hands the books of every row to l; a killed row's (its last
// heartbeat's, or none) are marked open (workload.BookOpen).
func (run runRows) use(l workload.Ledger) error {
	books := make([]map[string]int64, len(run))
	for i, r := range run {
		if r.ledger != "" {
			if err := json.Unmarshal([]byte(r.ledger), &books[i]); err != nil {
				return fmt.Errorf("reading the books of %s shard %d in %s: %w", r.runID, r.shard, runTable, err)
			}
		}
		if books[i] == nil {
			books[i] = map[string]int64{}
		}
		if r.state != "finished" {
			books[i][workload.BookOpen] = 1
		}
	}
	l.UseLedgers(books)
	return nil
}

// RunRecord is what the run table says a split run ran: the workload and
// its command line (passwords masked), as shard 0 gave them.
type RunRecord struct {
	Workload string
	Args     []string
}

// ReadRunRecord reads what run id ran from db's run table; an id it has
// no record of is an error wrapping ErrNoRun.
func ReadRunRecord(ctx context.Context, db *Database, id string) (RunRecord, error) {
	var rec RunRecord
	err := withConn(ctx, db, func(c target.Conn) error {
		run, err := readRun(ctx, c, id)
		if target.IsUndefinedTable(err) || err == nil && len(run) == 0 {
			return fmt.Errorf("%s has no split run %q: %w", db.URL, id, ErrNoRun)
		}
		if err != nil {
			return err
		}
		rec.Workload = run[0].workload
		return json.Unmarshal([]byte(run[0].args), &rec.Args)
	})
	return rec, err
}

// CheckRun checks the invariants of the whole split run id once every
// shard finished: s is the run's workload, its settings parsed from the
// run's record (ReadRunRecord). Init finds the schema and data the shards
// used (it never creates them: s.Fresh is ignored). With partial, shards
// that were killed count with their books as far as their last
// heartbeat, as a range with no top: the check says what it could not
// verify.
func CheckRun(ctx context.Context, s Spec, db *Database, id string, partial bool) (*result.Check, error) {
	s.Fresh = false
	if _, err := Init(ctx, s, db); err != nil {
		return nil, err
	}
	var ch result.Check
	err := withConn(ctx, db, func(c target.Conn) error {
		return whileAnswering(ctx, db.Connect, func(ctx context.Context) error { return checkRun(ctx, s, c, id, partial, &ch) })
	})
	if err != nil {
		return nil, err
	}
	return &ch, nil
}

// checkRun is CheckRun's check on c.
func checkRun(ctx context.Context, s Spec, c target.Conn, id string, partial bool, ch *result.Check) error {
	run, err := readRun(ctx, c, id)
	if err != nil {
		return err
	}
	if u := run.unfinished(partial, "; check what can be with txnbench check "+id+" --partial"); u != "" {
		return fmt.Errorf("run %s is not finished: %s; check it when every shard has ended", id, u)
	}
	if _, ok := s.Workload.(workload.Ledger); !ok {
		return fmt.Errorf("run %s ran %s, whose check needs no shard's books: each shard's own check covered the whole run (see its result)", id, s.Name)
	}
	sh, err := shareBooks(ctx, s, c, id, shareWait, partial)
	if err != nil || sh.not != nil {
		if sh.not != nil {
			*ch = *sh.not
		}
		return err
	}
	if *ch, err = s.Workload.Check(ctx, c); err != nil {
		return err
	}
	return sh.after(ctx, s, c, ch)
}

// endShard records the shard in r and its end in the run table. The
// invariant check that follows covers the whole run when finishShard says
// so; otherwise the check it returns says who checks the run.
func endShard(ctx context.Context, s Spec, db *Database, r *result.Result, sh result.Shard, m *member) (*result.Check, error) {
	var whole bool
	err := withConn(ctx, db, func(c target.Conn) (err error) {
		whole, err = finishShard(ctx, s, c, m)
		return err
	})
	sh.Checked = whole
	r.Shards = []result.Shard{sh}
	if err != nil || whole {
		return nil, err
	}
	return &result.Check{NotChecked: fmt.Sprintf("shard %d of %d: the last shard to finish checks the whole run, or txnbench check %s", sh.Index, sh.Count, sh.RunID)}, nil
}
