package connectoverhead

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// opQuery is the workload's only op.
const opQuery = "query"

// The query kinds of --query.
const (
	kindSelect1 = "select1"
	kindPoint   = "point"
	kindComplex = "complex"
)

var kinds = []string{kindSelect1, kindPoint, kindComplex}

// maxRows keeps every generated id within a 32-bit INTEGER column: about
// 15 order items per user.
const maxRows = 100_000_000

// Workload is the connect-overhead workload.
type Workload struct {
	// flags
	kind  string
	rows  int
	delay time.Duration

	sql    schema
	fs     *pflag.FlagSet
	loaded workload.Loaded // what the existing data was made with
	seed   uint64          // the run's seed
	// What Start found, read by the clients and the check.
	base       totals
	minID      int64 // users' ids run from minID to maxID
	maxID      int64
	regionArgs []any            // each region's name, boxed once for the clients
	data       map[string]int64 // the rows of each table, for Data
}

var _ workload.Configurable = (*Workload)(nil)

// Flags registers the workload's options.
func (w *Workload) Flags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.StringVar(&w.kind, "query", kindPoint, "the query of each transaction: select1 (SELECT 1), point (one user by primary key) or complex (users x orders x items of one region, grouped, top 10 by revenue)")
	fs.IntVar(&w.rows, "rows", 10000, "users in the dataset (about 5 orders per user and 3 items per order; about 20 users per region)")
	fs.DurationVar(&w.delay, "delay", 0, "pause before each transaction; part of the cycle time")
	workload.DataFlags(fs, "rows")
	workload.RuntimeFlags(fs, "query", "delay")
}

// Validate checks the options.
func (w *Workload) Validate() error {
	switch {
	case !validKind(w.kind):
		return fmt.Errorf("unknown --query %q: choose select1, point or complex", w.kind)
	case w.rows < 0:
		return workload.NegativeError("rows", w.rows)
	case w.rows > maxRows:
		return fmt.Errorf("--rows %d is too large: give at most %d", w.rows, maxRows)
	case w.rows == 0 && w.kind != kindSelect1:
		return fmt.Errorf("--rows 0 leaves no users for the %s query: give at least 1", w.kind)
	case w.delay < 0:
		return workload.NegativeError("delay", w.delay)
	}
	return nil
}

func validKind(k string) bool {
	for _, v := range kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Settings are the options as recorded in a Result.
func (w *Workload) Settings() map[string]any {
	s := map[string]any{
		"query": w.kind,
		"rows":  w.rows,
		"delay": w.delay.String(),
	}
	w.loaded.Apply(s, w.seed) // data-shaping flags apply only to a load
	return s
}

// OpNames lists the ops in report order.
func (w *Workload) OpNames() []string { return []string{opQuery} }

// bind builds the SQL for the dialect.
func (w *Workload) bind(d target.Dialect) {
	w.sql = newSchema(d.Caps)
}

// loadBatch is how many users (with their orders and items) go into one
// transaction of the initial load.
const loadBatch = 1000

// dataName names the dataset in txnbench_meta.
const dataName = "connect-overhead"

// Init creates the schema and loads the dataset. The load ends by marking
// the data complete (workload.MarkLoaded); existing data without that mark
// is refused (workload.Schema.Prepare).
func (w *Workload) Init(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions) (bool, error) {
	w.bind(d)
	w.loaded, w.seed = nil, o.Seed
	reuse := func() error { return w.reuse(ctx, c, o) }
	if create, err := w.sql.tables.Make(ctx, c, o, w.sql.drop, w.sql.ddl, "schema", reuse); err != nil || !create {
		return false, err
	}
	g := newGenerator(o.Seed, w.rows)
	var b dataset
	var orders, items int
	start := time.Now()
	for done := 0; done < w.rows; {
		n := min(loadBatch, w.rows-done)
		g.next(&b, n)
		if err := w.load(ctx, c, &b); err != nil {
			return false, fmt.Errorf("loading the dataset: %w", err)
		}
		done += n
		orders += len(b.orders)
		items += len(b.items)
		if time.Since(start) > 5*time.Second || done == w.rows {
			o.Progress(fmt.Sprintf("loaded %d of %d users (%d orders, %d order items)", done, w.rows, orders, items))
			start = time.Now()
		}
	}
	for _, q := range w.sql.analyze {
		if _, err := c.Exec(ctx, q); err != nil {
			return false, fmt.Errorf("analyzing the dataset: %w", err)
		}
	}
	return true, workload.MarkLoaded(ctx, c, dataName, workload.LoadMark(w.fs, w.Settings(), o.Seed))
}

// reuse accepts the existing dataset when its load finished, and says so
// when it was made with other data-shaping settings than asked.
func (w *Workload) reuse(ctx context.Context, c target.Conn, o workload.InitOptions) (err error) {
	w.loaded, err = workload.Reuse(ctx, c, dataName, "connect-overhead", w.Settings(), o, func() (string, error) {
		var n int64
		if err := target.QueryRow(ctx, c, "SELECT count(*) FROM "+tableUsers, nil, &n); err != nil {
			return "", fmt.Errorf("counting the existing users: %w", err)
		}
		return fmt.Sprintf("%d users", n), nil
	})
	return err
}

// load inserts one batch of users, orders and items in one transaction.
func (w *Workload) load(ctx context.Context, c target.Conn, b *dataset) error {
	if err := c.Begin(ctx); err != nil {
		return err
	}
	defer c.Rollback(ctx)
	arrays := w.sql.arrays
	steps := []struct {
		what string
		sql  string
		args []any
		want int
	}{
		{"users", w.sql.insertUsers, b.userArgs(arrays), len(b.users)},
		{"orders", w.sql.insertOrders, b.orderArgs(arrays), len(b.orders)},
		{"order items", w.sql.insertItems, b.itemArgs(arrays), len(b.items)},
	}
	for _, s := range steps {
		n, err := c.Exec(ctx, s.sql, s.args...)
		if err != nil {
			return fmt.Errorf("inserting %s: %w", s.what, err)
		}
		if int(n) != s.want {
			return fmt.Errorf("inserting %s: %d rows for %d", s.what, n, s.want)
		}
	}
	return c.Commit(ctx)
}

var _ workload.Starter = (*Workload)(nil)

// Start records the dataset's counts and checksums for the check, and the
// range of user ids and the regions the clients draw from.
func (w *Workload) Start(ctx context.Context, c target.Conn) error {
	t, err := w.totals(ctx, c)
	if err != nil {
		return fmt.Errorf("counting the dataset before the run: %w", err)
	}
	w.base = t
	lo, hi, err := w.userRange(ctx, c)
	if err != nil {
		return fmt.Errorf("reading the user ids before the run: %w", err)
	}
	if t.users == 0 && w.kind != kindSelect1 {
		return fmt.Errorf("the %s query needs users but %s is empty: run init with --fresh and --rows 1 or more", w.kind, tableUsers)
	}
	w.minID, w.maxID = lo, hi
	w.data = map[string]int64{"users": t.users, "orders": t.orders, "order_items": t.items}
	n := regionCount(t.users)
	w.regionArgs = make([]any, n)
	for i := range w.regionArgs {
		w.regionArgs[i] = regionName(i)
	}
	return nil
}

var _ workload.DataReporter = (*Workload)(nil)

// Data is what Start found: the rows of each table.
func (w *Workload) Data() map[string]int64 { return w.data }

// NewClient makes one client with its own random stream.
func (w *Workload) NewClient(id int, rng *rand.Rand) workload.Client {
	return newClient(w, rng)
}

// regionName is the name of region i (0-based).
func regionName(i int) string { return "region-" + strconv.Itoa(i+1) }

// usersPerRegion sets the number of regions: the complex query reads one
// region, so its work stays the same whatever --rows is.
const usersPerRegion = 20

// regionCount is the number of regions of a dataset of users users.
func regionCount[T int | int64](users T) int {
	return max(1, int(users/usersPerRegion))
}

var _ workload.Tables = (*Workload)(nil)

// Tables is "": the ops only read what the load wrote.
func (w *Workload) Tables() string { return "" }
