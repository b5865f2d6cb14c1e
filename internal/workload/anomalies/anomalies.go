package anomalies

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// opTxn is the one op: a transaction of --txn-len micro-ops.
const opTxn = "txn"

// writesPerKey is how many writes a key takes before the clients move on
// to a fresh key in its place (Elle's rotation): the lists a read returns
// stay short, and the checker's work linear in the history, while --keys
// keys are written at any time.
const writesPerKey = 32

// Workload is list-append or rw-register, by its model.
type Workload struct {
	model history.Model
	// flags
	keys, txnLen int
	reads        float64
	historyFile  string
	ednFile      string
	given        [2]bool // --history, --history-edn given (even empty)
	record       bool

	sql     schema
	engine  string           // the dialect's name, for what its level promises
	level   target.Isolation // the level the clients run at
	clients int
	notes   []string

	// the run
	base    int64 // the row of history key 0 (runKeys)
	epoch   time.Time
	written []atomic.Int64 // writes planned of each key slot: its generation is written / writesPerKey
	mu      sync.Mutex
	logs    []*history.Log // each client's, by id
	unknown atomic.Int64   // commits whose outcome is unknown
}

var _ workload.Configurable = (*Workload)(nil)

// Flags registers the options.
func (w *Workload) Flags(fs *pflag.FlagSet) {
	fs.IntVar(&w.keys, "keys", 8, "keys written at any time: fewer is more contention (each key is replaced by a fresh one after 32 writes)")
	fs.IntVar(&w.txnLen, "txn-len", 4, "micro-ops (reads and writes) per transaction")
	what := "appends"
	if w.model == history.Register {
		what = "writes (each a read, then a write of the key)"
	}
	fs.Float64Var(&w.reads, "reads", 0.5, "the share of micro-ops that are reads, the rest "+what)
	fs.Var(&fileFlag{path: &w.historyFile, given: &w.given[0]}, "history", "save the run's history to FILE, to check again with txnbench check --history FILE")
	fs.Var(&fileFlag{path: &w.ednFile, given: &w.given[1]}, "history-edn", "export the run's history to FILE in Elle's EDN form")
	fs.BoolVar(&w.record, "record", true, "record the history and check it; --record=false runs the same transactions unrecorded and unchecked, to measure what recording costs")
	workload.RuntimeFlags(fs, "keys", "txn-len", "reads", "history", "history-edn", "record")
}

// Validate checks the options.
func (w *Workload) Validate() error {
	switch {
	case w.keys < 1 || w.keys > 1<<20:
		return fmt.Errorf("--keys %d: give 1 to %d keys", w.keys, 1<<20)
	case w.txnLen < 1 || w.txnLen > 1000:
		return fmt.Errorf("--txn-len %d: give 1 to 1000 micro-ops per transaction", w.txnLen)
	case !(w.reads >= 0 && w.reads <= 1): // NaN too
		return fmt.Errorf("--reads %g: give a share from 0 to 1", w.reads)
	}
	for i, f := range []struct{ flag, path string }{{"--history", w.historyFile}, {"--history-edn", w.ednFile}} {
		if f.path == "" {
			if w.given[i] { // an unset variable: no history would be saved where one was asked for
				return fmt.Errorf("%s is empty: give a file to save the history to, or leave %s out", f.flag, f.flag)
			}
			continue
		}
		if st, err := os.Stat(filepath.Dir(f.path)); err != nil || !st.IsDir() {
			return fmt.Errorf("%s %s: its directory %s does not exist: give a file in one that does", f.flag, f.path, filepath.Dir(f.path))
		}
		if st, err := os.Stat(f.path); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("%s %s is not a regular file: give a file to write the history to", f.flag, f.path)
		}
	}
	if !w.record && (w.historyFile != "" || w.ednFile != "") {
		return fmt.Errorf("--record=false records no history to save: leave --history and --history-edn out, or --record")
	}
	if w.historyFile != "" && w.historyFile == w.ednFile {
		return fmt.Errorf("--history and --history-edn both name %s: give each its own file", w.historyFile)
	}
	return nil
}

// Settings are the options as recorded in a Result.
func (w *Workload) Settings() map[string]any {
	return map[string]any{"keys": w.keys, "txn_len": w.txnLen, "reads": w.reads, "history": w.historyFile, "history_edn": w.ednFile, "record": w.record}
}

var _ workload.Saver = (*Workload)(nil)

// Outputs are the history files given.
func (w *Workload) Outputs() []workload.Output {
	return []workload.Output{{Flag: "--history", Path: w.historyFile}, {Flag: "--history-edn", Path: w.ednFile}}
}

var _ workload.Tables = (*Workload)(nil)

// Tables is "": a run writes and reads only the rows of its own key
// range (runKeys), so another run on the same tables at once takes none
// of its work, and each run's check is its own.
func (w *Workload) Tables() string { return "" }

var _ workload.Unsplittable = (*Workload)(nil)

// Unsplittable refuses a split run: each shard would hold only its own
// clients' part of the history, which is no history of the run.
func (w *Workload) Unsplittable() string {
	return w.model.String() + " checks the history of every client of the run in one process: a split run (--shard) would check each shard's part alone; run it in one process"
}

var _ workload.Noter = (*Workload)(nil)

// Notes say what the check holds the run to.
func (w *Workload) Notes() []string { return w.notes }

// OpNames lists the one op.
func (w *Workload) OpNames() []string { return []string{opTxn} }

// Init creates the model's table (workload.Schema.Prepare: a table of its
// name without txnbench's mark is refused) and learns the level the
// clients run at and what the engine promises at it.
func (w *Workload) Init(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions) (bool, error) {
	w.sql, w.engine, w.clients = newSchema(w.model, d.Caps), d.Name, max(o.Clients, 1)
	if w.level = o.Isolation; w.level == target.DefaultIsolation {
		w.level = d.Isolation
	}
	w.notes = nil
	if p, err := w.promise(); err == nil {
		w.notes = append(w.notes, "the history is checked against "+history.PromiseText(w.engine, string(w.level), p))
	}
	if create, err := w.sql.tables.Make(ctx, c, o, w.sql.drop, w.sql.ddl, w.sql.tables.What, nil); err != nil || !create {
		return false, err
	}
	return true, workload.MarkLoaded(ctx, c, w.sql.tables.Data, nil)
}

// promise is the checker's level for the engine's level.
func (w *Workload) promise() (history.Level, error) {
	return history.Promise(w.engine, string(w.level))
}

// runKeys is the width of a run's key range: a run's history key k is
// the row base+k, base a multiple of runKeys picked at random per run.
// Two runs on one table at once (two processes on one SQLite file, or
// on one server) then never read or empty each other's rows, and each
// checks its own history; a run's key never reaches runKeys (a key is
// one of --keys slots times its generation, a generation per 32 writes).
const runKeys = 1 << 32

// clearTries is how many times Start tries to empty its key range.
const clearTries = 5

var _ workload.Starter = (*Workload)(nil)

// Start picks the run's key range, empties it (a history begins with
// every key unwritten) and the run's records. Another run's rows are
// left as they are: it may be running.
func (w *Workload) Start(ctx context.Context, c target.Conn) error {
	w.base = (1 + rand.Int64N(1<<30)) * runKeys
	// The range's DELETE locks the index's gaps on InnoDB, where another
	// run's transactions are writing beside it: a deadlock or serialization
	// failure is tried again (seen once with two runs on one MariaDB under
	// load), anything else ends the start.
	for try := 1; ; try++ {
		_, err := c.Exec(ctx, w.sql.clear, w.base, w.base+runKeys)
		if err == nil {
			break
		}
		if try == clearTries || !target.Classify(err).Retryable() {
			return fmt.Errorf("emptying the %s: %w", w.sql.tables.What, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(try) * 50 * time.Millisecond):
		}
	}
	w.epoch = time.Now()
	w.written = make([]atomic.Int64, w.keys)
	w.logs = make([]*history.Log, w.clients)
	w.unknown.Store(0)
	return nil
}

// now is the time since the run's epoch, in monotonic nanoseconds.
func (w *Workload) now() int64 { return int64(time.Since(w.epoch)) }

// NewClient makes client id with its own Log.
func (w *Workload) NewClient(id int, rng *rand.Rand) workload.Client {
	ops := w.txnLen
	if w.model == history.Register {
		ops *= 2 // a write is a read, then the write
	}
	log := history.NewLog(id, 1024, ops, w.txnLen*writesPerKey/2)
	w.mu.Lock()
	for id >= len(w.logs) {
		w.logs = append(w.logs, nil)
	}
	w.logs[id] = log
	w.mu.Unlock()
	return newClient(w, id, rng, log)
}

// fileFlag is a file name flag that knows it was given, as "" too.
type fileFlag struct {
	path  *string
	given *bool
}

func (f *fileFlag) String() string {
	if f.path == nil {
		return ""
	}
	return *f.path
}
func (f *fileFlag) Set(v string) error { *f.path, *f.given = v, true; return nil }
func (f *fileFlag) Type() string       { return "string" }
