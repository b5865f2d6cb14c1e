package job

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/txnbench/txnbench/internal/engine"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Runs that share a database: every run on a database server whose ops
// write tables registers in the run table (the shards' table) as shard 0
// of 1 of its own run, with what it writes (Spec.tables), when it began,
// a heartbeat while it runs and its books when it ends. Its check then
// knows which other runs wrote the same tables at the same time: it waits
// for them and counts the sum of every one's books, or, when it cannot
// (a workload without books, a run killed or still running), says it did
// not check, and why; it never takes another run's work for its own.

// beatEvery is how often a running run marks itself alive.
const beatEvery = 2 * time.Second

// beatStale is how old a heartbeat is when its run is taken for killed.
const beatStale = 15 * time.Second

// shareWait is how long a check waits for the other runs that wrote its
// tables at the same time to end.
const shareWait = 2 * time.Minute

// tables is the key of what s's ops write (workload.Tables), "" when they
// write nothing.
func (s Spec) tables() string {
	if t, ok := s.Workload.(workload.Tables); ok {
		if t.Tables() == "" {
			return ""
		}
		return s.Name + ":" + t.Tables()
	}
	return s.Name
}

// registers reports whether a whole run of s registers in the run table:
// when it writes tables on a database server that other processes reach
// (not an embedded database, nor a throwaway server of its own) and
// whose engine keeps the run table.
func (s Spec) registers(db *Database) bool {
	return s.DB.Remote() && engine.Of(s.DB).Caps().RunTable && s.tables() != "" && !db.Dialect().Embedded
}

// member is this process's row in the run table while it runs.
type member struct {
	runID string
	shard int
	name  string // "run ID" or "shard I of N of run ID", for messages
	stop  func() // ends the heartbeat; safe to call twice
	// finished is set once its end is recorded (finishShard).
	finished bool
}

// end records the end of a whole run that failed before its check (its
// books are what its clients did, if anything), so that no other run
// waits for it or takes it for killed.
func (m *member) end(wctx context.Context, s Spec, db *Database) {
	if m == nil || m.finished {
		return
	}
	// Within the run's wind-down (after an interrupt, what is left of its
	// budget: nothing more is waited for) and 2 s.
	ctx, cancel := context.WithTimeout(wctx, 2*time.Second)
	defer cancel()
	withConn(ctx, db, func(c target.Conn) error {
		_, err := finishShard(ctx, s, c, m)
		return err
	})
}

// serial tells apart the runs of one process (a study's cells).
var serial struct {
	sync.Mutex
	n int
}

// wholeRunID is an id for a run that was given none: the workload, the
// host, the process and the run's number in it.
func wholeRunID(name string) string {
	serial.Lock()
	serial.n++
	n := serial.n
	serial.Unlock()
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s.%d.%d", name, host, os.Getpid(), n)
}

// serverNow reads the server's clock on c.
func serverNow(ctx context.Context, c target.Conn) (t time.Time, err error) {
	if err = target.QueryRow(ctx, c, "SELECT clock_timestamp()", nil, &t); err != nil {
		err = fmt.Errorf("reading the server's clock: %w", err)
	}
	return t, err
}

// registerRun records a whole run in the run table as it begins (before
// its Start counts anything), on c; the heartbeat starts with beat.
func registerRun(ctx context.Context, s Spec, db *Database, c target.Conn) (*member, error) {
	m := &member{runID: wholeRunID(s.Name), stop: func() {}}
	m.name = "run " + m.runID
	host, _ := os.Hostname()
	args, _ := json.Marshal(maskAll(s.Args))
	if err := lockedRunTable(ctx, s, db, c); err != nil {
		return m, err
	}
	_, err := c.Exec(ctx, "INSERT INTO "+runTable+" (run_id, shard, shards, host, workload, args, skew_ms, state, settings, tables, began_at, beat_at) VALUES ($1, 0, 1, $2, $3, $4, 0, 'registered', '', $5, clock_timestamp(), clock_timestamp())",
		m.runID, host, s.Name, string(args), s.tables())
	if err != nil {
		return m, fmt.Errorf("registering %s in %s: %w", m.name, runTable, err)
	}
	return m, nil
}

// beat marks m alive in the run table every beatEvery, with its books so
// far, until m.stop; a beat that fails is tried again at the next.
func (m *member) beat(s Spec, db *Database) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var c target.Conn
		defer func() {
			if c != nil {
				c.Close(context.Background())
			}
		}()
		for runner.Sleep(ctx, beatEvery) == nil {
			if c == nil {
				var err error
				if c, err = db.Connect(ctx); err != nil {
					c = nil
					continue
				}
			}
			_, err := c.Exec(ctx, "UPDATE "+runTable+" SET beat_at = clock_timestamp(), ledger = $3 WHERE run_id = $1 AND shard = $2 AND state <> 'finished'", m.runID, m.shard, s.books())
			if err != nil {
				c.Close(context.Background())
				c = nil
			}
		}
	}()
	var once sync.Once
	m.stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// sharing is what the check of a run counts: its own books, or the sum of
// those of the runs that wrote its tables at the same time (with), or
// nothing (not says why).
type sharing struct {
	key   string
	group []string // the run ids counted, the run's own first
	with  []string // the others among them
	not   *result.Check
}

// shareBooks finds the runs that wrote s's tables while run id did (and
// those that overlapped them, and so on), waits at most wait for them to
// end, and hands the books of them all to s's workload; when it cannot
// (a workload without books, a run killed or still running) the sharing's
// not says why nothing is checked. With partial, runs that were killed
// count with their books as far as their last heartbeat (open).
func shareBooks(ctx context.Context, s Spec, c target.Conn, id string, wait time.Duration, partial bool) (sharing, error) {
	sh := sharing{key: s.tables()}
	l, ledger := s.Workload.(workload.Ledger)
	if sh.key == "" {
		run, err := readRun(ctx, c, id)
		if err == nil && ledger {
			err = run.use(l)
		}
		return sh, err
	}
	deadline := time.Now().Add(wait)
	for {
		own, err := readRun(ctx, c, id)
		if err != nil {
			return sh, err
		}
		if len(own) == 0 {
			return sh, fmt.Errorf("run %s is not in the run table %s", id, runTable)
		}
		since := own[0].began.Add(-24 * time.Hour)
		rows, err := readRows(ctx, c, "tables = $1 AND state <> $2 AND began_at IS NOT NULL AND coalesce(finished_at, clock_timestamp()) > $3", sh.key, refused, since)
		if err != nil {
			return sh, err
		}
		group := overlapping(rows, id)
		sh.group = group.runs(id)
		sh.with = sh.group[1:]
		var running, killed []string
		for _, r := range group {
			switch {
			case r.runID == id || r.state == "finished":
			case r.killed():
				killed = append(killed, fmt.Sprintf("run %s (no heartbeat since %s: killed?)", r.runID, clock(r.beat)))
			default:
				running = append(running, "run "+r.runID)
			}
		}
		switch {
		case len(running) > 0 && time.Now().Before(deadline):
			if err := runner.Sleep(ctx, 200*time.Millisecond); err != nil {
				return sh, err
			}
			continue
		case len(running) > 0:
			sh.not = &result.Check{NotChecked: fmt.Sprintf("%s wrote these tables at the same time and had not ended %s after this run; txnbench check %s checks them all once they have", list(running), wait, id)}
		case len(killed) > 0 && !partial:
			sh.not = &result.Check{NotChecked: fmt.Sprintf("%s wrote these tables at the same time and stopped without finishing; txnbench check %s --partial checks what can be", list(killed), id)}
		case len(sh.with) > 0 && !ledger:
			sh.not = &result.Check{NotChecked: fmt.Sprintf("%s wrote these tables at the same time", list(prefix("run ", sh.with)))}
		case ledger:
			return sh, group.use(l)
		}
		return sh, nil
	}
}

// after runs after the check ch: ch tells which runs it counted, and is
// made not checked when another run began writing the tables before it
// ended (the check read that run's work without its books).
func (sh sharing) after(ctx context.Context, s Spec, c target.Conn, ch *result.Check) error {
	if sh.key == "" || len(sh.group) == 0 {
		return nil
	}
	rows, err := readRows(ctx, c, "tables = $1 AND state <> $2 AND began_at IS NOT NULL AND coalesce(finished_at, clock_timestamp()) > (SELECT min(began_at) FROM "+runTable+" WHERE run_id = $3)", sh.key, refused, sh.group[0])
	if err != nil {
		return err
	}
	var lo time.Time // when the first run counted began
	for _, r := range rows {
		if slices.Contains(sh.group, r.runID) && (lo.IsZero() || r.began.Before(lo)) {
			lo = r.began
		}
	}
	var late []string // not counted, yet writing after lo (a killed run's end is its last heartbeat)
	for _, r := range rows {
		if !slices.Contains(sh.group, r.runID) && r.ended.After(lo) && !slices.Contains(late, "run "+r.runID) {
			late = append(late, "run "+r.runID)
		}
	}
	if len(late) > 0 {
		*ch = result.Check{NotChecked: fmt.Sprintf("%s began writing these tables while this run's check read them", list(late))}
		return nil
	}
	if len(sh.with) > 0 && ch.NotChecked == "" {
		ch.Add("books of the runs sharing these tables", true, "counted together with %s, which wrote these tables at the same time: the check holds for all of them", list(prefix("run ", sh.with)))
	}
	return nil
}

// overlapping is the rows of run id and of every run whose time (from
// its beginning to its end or last sign of life) overlaps the time of
// those already taken, until no other does.
func overlapping(rows runRows, id string) runRows {
	in := map[string]bool{id: true}
	for grew := true; grew; {
		grew = false
		var lo, hi time.Time
		for _, r := range rows {
			if in[r.runID] {
				if lo.IsZero() || r.began.Before(lo) {
					lo = r.began
				}
				if r.ended.After(hi) {
					hi = r.ended
				}
			}
		}
		for _, r := range rows {
			if !in[r.runID] && r.began.Before(hi) && r.ended.After(lo) {
				in[r.runID], grew = true, true
			}
		}
	}
	var group runRows
	for _, r := range rows {
		if in[r.runID] {
			group = append(group, r)
		}
	}
	return group
}

// runs is the run ids in rows, first first (when given and there), each
// once.
func (run runRows) runs(first string) []string {
	ids := []string{}
	if first != "" {
		ids = append(ids, first)
	}
	for _, r := range run {
		if !slices.Contains(ids, r.runID) {
			ids = append(ids, r.runID)
		}
	}
	return ids
}

// list is at most three of items, and how many more.
func list(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:3], ", "), len(items)-3)
}

// prefix is items, each after p.
func prefix(p string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = p + s
	}
	return out
}
