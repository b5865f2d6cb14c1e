package trainevents

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Op names, in report order.
const (
	opAdd     = "add"
	opProcess = "process"
	opArchive = "archive"
)

// Workload is the train-events workload.
type Workload struct {
	// flags
	preset             string
	payload, flat      string
	inverted           bool
	rows               int
	minBatch, maxBatch int
	delay              time.Duration
	thinkMin, thinkMax time.Duration
	fs                 *pflag.FlagSet
	v                  variant // the axes asked for
	eff                variant // the axes the dialect could give
	notes              []string
	caps               target.Capabilities
	sql                schema
	loaded             workload.Loaded  // what the existing data was made with
	seed               uint64           // the run's seed
	data               map[string]int64 // the rows Start found, by table
	baseline           int64            // events + archive when the run started
	committedEvents    atomic.Int64     // events inserted by committed adds
	unknownCommits     atomic.Int64     // commits of any op with unknown outcome
	unknownEvents      atomic.Int64     // events of adds whose commit outcome is unknown
	batches            batches          // generated batches not being inserted

	// ledgers are every shard's books, for Check (nil: this process's own)
	ledgers []map[string]int64
}

var _ workload.Configurable = (*Workload)(nil)

// Flags registers the workload's options.
func (w *Workload) Flags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.StringVar(&w.preset, "variant", "jsonb", "schema preset: jsonb (generated columns, inverted index), manual (JSONB, application-written columns), text (TEXT payload, generated columns)")
	fs.StringVar(&w.payload, "payload", "", "payload type, overriding the preset: jsonb or text")
	fs.StringVar(&w.flat, "flat-columns", "", "flat columns, overriding the preset: generated or manual")
	fs.BoolVar(&w.inverted, "inverted-index", false, "inverted (GIN) index on the payload, overriding the preset (--inverted-index=false to drop it)")
	fs.IntVar(&w.rows, "rows", 20000, "initial events (each with a PENDING status)")
	fs.IntVar(&w.minBatch, "min-batch", 10, "fewest events per transaction")
	fs.IntVar(&w.maxBatch, "max-batch", 100, "most events per transaction")
	fs.DurationVar(&w.delay, "delay", 100*time.Millisecond, "pause before each cycle, times U(0.75, 1.25); part of the cycle time")
	fs.DurationVar(&w.thinkMin, "think-min", 10*time.Millisecond, "shortest think time inside each transaction")
	fs.DurationVar(&w.thinkMax, "think-max", 50*time.Millisecond, "longest think time inside each transaction")
	workload.DataFlags(fs, "variant", "payload", "flat-columns", "inverted-index", "rows")
	workload.RuntimeFlags(fs, "min-batch", "max-batch", "delay", "think-min", "think-max")
}

// overrideAxis sets *axis from the two-valued flag --name's value val:
// off makes it false, on true, "" leaves the preset's.
func overrideAxis(axis *bool, name, val, off, on string) error {
	switch val {
	case "":
	case off, on:
		*axis = val == on
	default:
		return fmt.Errorf("unknown --%s %q: choose %s or %s", name, val, off, on)
	}
	return nil
}

// Validate checks the options and resolves the variant's axes.
func (w *Workload) Validate() error {
	v, ok := presets[w.preset]
	if !ok {
		return fmt.Errorf("unknown --variant %q: choose one of %s", w.preset, presetNames())
	}
	if err := overrideAxis(&v.TextPayload, "payload", w.payload, "jsonb", "text"); err != nil {
		return err
	}
	if err := overrideAxis(&v.ManualColumns, "flat-columns", w.flat, "generated", "manual"); err != nil {
		return err
	}
	if w.fs != nil && w.fs.Changed("inverted-index") {
		v.InvertedIndex = w.inverted
	}
	switch {
	case w.rows < 0:
		return workload.NegativeError("rows", w.rows)
	case w.minBatch < 1:
		return fmt.Errorf("--min-batch %d: give at least 1", w.minBatch)
	case w.maxBatch < w.minBatch:
		return fmt.Errorf("--min-batch %d is larger than --max-batch %d: make min <= max", w.minBatch, w.maxBatch)
	case w.delay < 0:
		return workload.NegativeError("delay", w.delay)
	case w.thinkMin < 0:
		return workload.NegativeError("think-min", w.thinkMin)
	case w.thinkMax < w.thinkMin:
		return fmt.Errorf("--think-min %s is longer than --think-max %s: make min <= max", w.thinkMin, w.thinkMax)
	}
	if err := v.validate(); err != nil {
		return err
	}
	w.v, w.eff = v, v
	return nil
}

// Settings are the options as recorded in a Result.
func (w *Workload) Settings() map[string]any {
	s := map[string]any{
		"variant":        w.v.name(),
		"payload":        w.eff.payloadType(),
		"flat_columns":   w.eff.flatColumns(),
		"inverted_index": w.eff.InvertedIndex,
		"rows":           w.rows,
		"min_batch":      w.minBatch,
		"max_batch":      w.maxBatch,
		"delay":          w.delay.String(),
		"think_min":      w.thinkMin.String(),
		"think_max":      w.thinkMax.String(),
	}
	w.loaded.Apply(s, w.seed) // data-shaping flags apply only to a load
	return s
}

var _ workload.Noter = (*Workload)(nil)

// Notes say what the workload changed to fit the database.
func (w *Workload) Notes() []string { return w.notes }

// OpNames lists the ops in report order.
func (w *Workload) OpNames() []string { return []string{opAdd, opProcess, opArchive} }

// bind fits the workload to the dialect and builds its SQL.
func (w *Workload) bind(d target.Dialect) {
	w.eff, w.notes = adapt(w.v, d.Caps, d.Name)
	w.caps = d.Caps
	w.sql = newSchema(w.v.name(), w.eff, d.Caps)
}

// loadBatch is how many initial events go into one transaction.
const loadBatch = 1000

// Init creates the schema and loads the initial events. The load ends by
// marking the data complete (workload.MarkLoaded); existing data without
// that mark is refused (workload.Schema.Prepare).
func (w *Workload) Init(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions) (bool, error) {
	if !d.Caps.ArrayParams && !d.Caps.JSONEach && !d.Caps.JSONTable {
		return false, fmt.Errorf("%w: train-events sends its batches as array parameters or a JSON array for json_each() or JSON_TABLE, and %s has none of them", workload.ErrUnsupported, d.Name)
	}
	w.bind(d)
	w.loaded, w.seed = nil, o.Seed
	for _, n := range w.notes {
		o.Progress(n)
	}
	reuse := func() error { return w.reuse(ctx, c, o) }
	if create, err := w.sql.tables.Make(ctx, c, o, w.sql.drop, w.sql.ddl, "schema", reuse); err != nil || !create {
		return false, err
	}
	loader := w.newClient(rand.New(rand.NewPCG(o.Seed, 1<<63)), 0)
	start := time.Now()
	for done := 0; done < w.rows; {
		n := min(loadBatch, w.rows-done)
		err := func() error {
			if err := c.Begin(ctx); err != nil {
				return err
			}
			defer c.Rollback(ctx)
			if err := loader.insertNew(ctx, c, n); err != nil {
				return err
			}
			if err := loader.insertStatus(ctx, c); err != nil {
				return err
			}
			return c.Commit(ctx)
		}()
		if err != nil {
			return false, fmt.Errorf("loading initial events: %w", err)
		}
		done += n
		if time.Since(start) > 5*time.Second || done == w.rows {
			o.Progress(fmt.Sprintf("loaded %d of %d initial events", done, w.rows))
			start = time.Now()
		}
	}
	return true, workload.MarkLoaded(ctx, c, w.dataName(), workload.LoadMark(w.fs, w.Settings(), o.Seed))
}

// dataName names the variant's data in txnbench_meta.
func (w *Workload) dataName() string { return w.sql.tables.Data }

// reuse accepts the existing data when its load finished, and says so when
// it was made with other data-shaping settings than asked.
func (w *Workload) reuse(ctx context.Context, c target.Conn, o workload.InitOptions) (err error) {
	w.loaded, err = workload.Reuse(ctx, c, w.dataName(), "train-events", w.Settings(), o, func() (string, error) {
		n, err := w.count(ctx, c, "SELECT count(*) FROM "+w.sql.events)
		if err != nil {
			return "", fmt.Errorf("counting the existing events: %w", err)
		}
		return fmt.Sprintf("%d events", n), nil
	})
	return err
}

var _ workload.Starter = (*Workload)(nil)

// Start counts the events the invariant check starts from, and the rows of
// each table that Data reports.
func (w *Workload) Start(ctx context.Context, c target.Conn) error {
	w.data = map[string]int64{}
	for _, t := range []struct{ key, table string }{{"events", w.sql.events}, {"status", w.sql.status}, {"archived", w.sql.archive}} {
		n, err := w.count(ctx, c, "SELECT count(*) FROM "+t.table)
		if err != nil {
			return fmt.Errorf("counting events before the run: %w", err)
		}
		w.data[t.key] = n
	}
	w.baseline = w.data["events"] + w.data["archived"]
	w.committedEvents.Store(0)
	w.unknownCommits.Store(0)
	w.unknownEvents.Store(0)
	return nil
}

var _ workload.DataReporter = (*Workload)(nil)

// Data is what Start found: live events, their status rows and archived
// events.
func (w *Workload) Data() map[string]int64 { return w.data }

// NewClient makes one client with its own random stream.
func (w *Workload) NewClient(id int, rng *rand.Rand) workload.Client {
	return w.newClient(rng, w.baseline)
}

// newClient makes a client whose events derive from rng and nonce. Runs
// pass the event total at their start as the nonce: the same seed on the
// same data gives the same events, and a later run on the same tables
// never regenerates ids that an earlier run stored (the total only grows
// when events are stored).
func (w *Workload) newClient(rng *rand.Rand, nonce int64) *client {
	gen := generator{rng: rand.New(rand.NewPCG(rng.Uint64(), uint64(nonce))), now: time.Now}
	c := &client{w: w, rng: rng, gen: gen}
	var id any = &c.rowID
	if !w.caps.ArrayParams {
		id = (*textUUID)(&c.rowID) // stored as text
	}
	c.dest = []any{id, &c.docs}
	c.ops = []workload.Op{
		{Name: opAdd, Run: workload.InTxn(c.add)},
		{Name: opProcess, Run: workload.InTxn(c.process)},
		{Name: opArchive, Run: workload.InTxn(c.archive)},
	}
	return c
}

// eventMemory is about the most memory a client holds per event of its
// batch: the ~1 KB payload generated into a buffer that grows by doubling,
// its encoding as statement arguments, the driver's copy of them on the
// wire, and the ids and payloads read back.
const eventMemory = 8 << 10

var _ workload.MemoryUser = (*Workload)(nil)

// ClientMemory is the memory of one client's largest batch.
func (w *Workload) ClientMemory() (float64, string) {
	return float64(w.maxBatch) * eventMemory, fmt.Sprintf("--max-batch %d", w.maxBatch)
}
