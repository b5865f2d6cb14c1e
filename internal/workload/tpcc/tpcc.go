package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Op names, in report order (the specification's transactions).
const (
	opNewOrder    = "new-order"
	opPayment     = "payment"
	opOrderStatus = "order-status"
	opDelivery    = "delivery"
	opStockLevel  = "stock-level"
)

var opNames = []string{opNewOrder, opPayment, opOrderStatus, opDelivery, opStockLevel}

// Per transaction, in opNames' order: the keying time and mean think time
// (clause 5.2.5.7) and the 90th-percentile response-time limit
// (clause 5.2.5.3).
var (
	keying    = [5]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	thinkMean = [5]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
	limit90   = [5]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 80 * time.Second, 20 * time.Second}
)

// The specification's cardinalities (clause 1.2): the defaults of the
// flags that shrink them for tests.
const (
	specItems     = 100_000
	specCustomers = 3_000
)

// terminalsPerWarehouse are the clients that work on one warehouse
// (clause 5.2.2: ten terminals per warehouse, one per district).
const terminalsPerWarehouse = 10

// The values of --check.
const (
	checkAuto  = "auto"
	checkFull  = "full"
	checkQuick = "quick"
)

// maxWarehouses bounds --warehouses and --active-warehouses: 100,000
// warehouses are about 10 TB of data and a million terminals, beyond any
// load txnbench would finish; a larger number is a typo (and ten
// terminals each would overflow the count of clients).
const maxWarehouses = 100_000

// autoFullWarehouses is the largest number of warehouses for which
// --check auto runs the conditions that read every order line and
// customer.
const autoFullWarehouses = 10

// Workload is the TPC-C-like workload.
type Workload struct {
	// flags
	sc             scale
	active         int
	mixFlag        string
	wait           bool
	check          string
	implementation string
	fs             *pflag.FlagSet
	mix            [5]int
	sql            schema
	batch          batch             // the SQL of --implementation batched
	procs          procs             // the calls of --implementation procedures
	stockSQL       [districts]string // the stock update returning s_dist_01 .. s_dist_10
	stockRead      [districts]string // its read, without UPDATE ... RETURNING
	engineNote     string            // how the dialect's SQL differs, or ""
	loaded         workload.Loaded   // what the existing data was made with
	seed           uint64            // the run's seed
	load, run      constants         // NURand's C values
	lastNames      int               // customers' last names in use: 0 to lastNames-1
	data           map[string]int64
	base           money // the money when the run started
	tally                // what the clients count, zeroed by Start

	// ledgers are every shard's books, for Check (nil: this process's own)
	ledgers []map[string]int64
}

var _ workload.Configurable = (*Workload)(nil)

// Flags registers the workload's options.
func (w *Workload) Flags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.IntVar(&w.sc.warehouses, "warehouses", 1, "warehouses loaded (each 10 districts, 30,000 customers, 100,000 stock rows, 30,000 orders)")
	fs.IntVar(&w.sc.items, "items", specItems, "items, and stock rows per warehouse (not TPC-C unless 100000; for tests)")
	fs.IntVar(&w.sc.customers, "customers-per-district", specCustomers, "customers, orders and history rows per district (not TPC-C unless 3000; for tests)")
	fs.IntVar(&w.active, "active-warehouses", 0, "warehouses the terminals work on, 1 to N (0: all loaded)")
	fs.StringVar(&w.mixFlag, "mix", "45,43,4,4,4", "weights of New-Order, Payment, Order-Status, Delivery and Stock-Level, dealt from a shuffled deck")
	fs.BoolVar(&w.wait, "wait", true, "keying and think times of the specification (--wait=false: run flat out)")
	fs.StringVar(&w.check, "check", checkAuto, "consistency conditions after the run: auto (all up to 10 warehouses, else the cheap ones), full or quick (the cheap ones)")
	workload.DataFlags(fs, "warehouses", "items", "customers-per-district")
	fs.StringVar(&w.implementation, "implementation", implBatched, "how the transactions travel: batched (each New-Order's items, stock rows and order lines in one statement each), statements (one statement per step, per order line) or procedures (one call of a stored procedure per transaction, as HammerDB's TPROC-C; PostgreSQL and MariaDB)")
	workload.RuntimeFlags(fs, "active-warehouses", "mix", "wait", "check", "implementation")
}

// Validate checks the options.
func (w *Workload) Validate() error {
	switch {
	case w.sc.warehouses < 1 || w.sc.warehouses > maxWarehouses:
		return fmt.Errorf("--warehouses %d: give 1 to %d", w.sc.warehouses, maxWarehouses)
	case w.sc.items < 100 || w.sc.items > specItems:
		return fmt.Errorf("--items %d: give 100 to %d", w.sc.items, specItems)
	case w.sc.customers < 10 || w.sc.customers > specCustomers:
		return fmt.Errorf("--customers-per-district %d: give 10 to %d", w.sc.customers, specCustomers)
	case w.active < 0 || w.active > maxWarehouses:
		return fmt.Errorf("--active-warehouses %d: give 0 (all loaded) to %d", w.active, maxWarehouses)
	case w.active > w.sc.warehouses && w.fs.Changed("warehouses"): // else Start checks it against the data's
		return fmt.Errorf("--active-warehouses %d is more than --warehouses %d: give at most %d", w.active, w.sc.warehouses, w.sc.warehouses)
	case w.check != checkAuto && w.check != checkFull && w.check != checkQuick:
		return fmt.Errorf("unknown --check %q: choose auto, full or quick", w.check)
	case w.implementation != implBatched && w.implementation != implStatements && w.implementation != implProcedures:
		return fmt.Errorf("unknown --implementation %q: choose batched, statements or procedures", w.implementation)
	}
	mix, err := parseMix(w.mixFlag)
	if err != nil {
		return err
	}
	w.mix = mix
	return nil
}

// parseMix reads --mix: five weights that are not all zero.
func parseMix(s string) (mix [5]int, err error) {
	parts := strings.Split(s, ",")
	if len(parts) != len(mix) {
		return mix, fmt.Errorf("--mix %q: give five weights, e.g. 45,43,4,4,4 (New-Order, Payment, Order-Status, Delivery, Stock-Level)", s)
	}
	total := 0
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 || v > 1000 {
			return mix, fmt.Errorf("--mix %q: %q is not a weight from 0 to 1000", s, p)
		}
		mix[i] = v
		total += v
	}
	if total == 0 {
		return mix, fmt.Errorf("--mix %q: give at least one weight above 0", s)
	}
	return mix, nil
}

// Settings are the options as recorded in a Result.
func (w *Workload) Settings() map[string]any {
	s := map[string]any{
		"warehouses":             w.sc.warehouses,
		"items":                  w.sc.items,
		"customers_per_district": w.sc.customers,
		"active_warehouses":      w.activeWarehouses(),
		"mix":                    w.mixFlag,
		"wait":                   w.wait,
		"check":                  w.check,
		"implementation":         w.implementation,
	}
	w.loaded.Apply(s, w.seed) // data-shaping flags apply only to a load
	return s
}

// activeWarehouses is how many warehouses the terminals work on.
func (w *Workload) activeWarehouses() int {
	if w.active == 0 || w.active > w.sc.warehouses {
		return w.sc.warehouses
	}
	return w.active
}

var _ workload.ClientDefaulter = (*Workload)(nil)

// DefaultClients are ten terminals per active warehouse (clause 5.2.2),
// the clients of a run that does not give --clients: per
// --active-warehouses when given, else per --warehouses (the data's
// warehouses are not known yet).
func (w *Workload) DefaultClients() (int, string) {
	flag, n := "--warehouses", w.sc.warehouses
	if w.active > 0 {
		flag, n = "--active-warehouses", w.active
	}
	return terminalsPerWarehouse * n, fmt.Sprintf("%s %d (%d clients each, as --clients is not given)", flag, n, terminalsPerWarehouse)
}

// OpNames lists the ops in report order.
func (w *Workload) OpNames() []string { return opNames }

var _ workload.ReadOnlyOps = (*Workload)(nil)

// ReadOnlyOps are Order-Status and Stock-Level, which only read (clauses
// 2.6 and 2.8, in each implementation): --read-from may run them on a
// standby.
func (w *Workload) ReadOnlyOps() []string { return []string{opOrderStatus, opStockLevel} }

// dataName names the dataset in txnbench_meta.
const dataName = "tpcc"

// Init creates the schema and loads the data, warehouse after warehouse,
// with COPY where the database has it. The load ends by marking the data
// complete (workload.MarkLoaded); existing data without that mark is
// refused (workload.Schema.Prepare), so an interrupted load is loaded
// again with --reinit, and another tool's tables of the same names are
// dropped only then.
func (w *Workload) Init(ctx context.Context, c target.Conn, d target.Dialect, o workload.InitOptions) (bool, error) {
	w.sql = newSchema(d.Caps)
	w.batch = newBatch(d.Caps, &w.sql)
	w.engineNote = ""
	switch {
	case w.implementation == implProcedures && d.Caps.Procedures == "plpgsql":
		w.engineNote = "--implementation procedures: each transaction is one call of a PL/pgSQL function (" + procPrefix + "new_order and the others), its own transaction"
	case w.implementation == implProcedures:
		w.engineNote = "--implementation procedures: each transaction is one CALL of a stored procedure (" + procPrefix + "new_order and the others) that begins and commits it"
	case w.sql.reads != nil:
		w.engineNote = d.Name + " has no UPDATE ... RETURNING: New-Order, Payment and Delivery read each row they update right after the update, in the same transaction (one more round trip each)"
	}
	for i := range w.stockSQL {
		w.stockSQL[i], w.stockRead[i] = w.sql.stockStatement(i + 1)
	}
	w.loaded, w.seed = nil, o.Seed
	cp, ok := c.(target.Copier)
	if !ok {
		return false, errors.New("loading TPC-C: the database session cannot bulk load (no target.Copier)")
	}
	reuse := func() error {
		if err := w.reuse(ctx, c, o); err != nil {
			return err
		}
		return w.createProcs(ctx, c, d)
	}
	if create, err := w.sql.tables.Make(ctx, c, o, w.sql.drop, w.sql.ddl, "TPC-C schema", reuse); err != nil || !create {
		return false, err
	}
	consts := loadConstants(stream(o.Seed, "nurand", 0))
	l := &loader{c: cp, seed: o.Seed, sc: w.sc, consts: consts, loadTime: d.Caps.TimestampText(loadTime)}
	if err := l.items(ctx); err != nil {
		return false, err
	}
	if err := w.loadWarehouses(ctx, l, d, o); err != nil {
		return false, err
	}
	if _, err := c.Exec(ctx, "INSERT INTO "+nurandTable+" (c_last, c_id, ol_i_id) VALUES ($1, $2, $3)", consts.last, consts.cid, consts.item); err != nil {
		return false, fmt.Errorf("keeping the NURand constants: %w", err)
	}
	for _, q := range w.sql.analyze {
		if _, err := c.Exec(ctx, q); err != nil {
			return false, fmt.Errorf("analyzing the TPC-C tables: %w", err)
		}
	}
	if err := w.createProcs(ctx, c, d); err != nil {
		return false, err
	}
	return true, workload.MarkLoaded(ctx, c, dataName, workload.LoadMark(w.fs, w.Settings(), o.Seed))
}

// reuse accepts the existing data when its load finished, and takes the
// scale it was made with.
func (w *Workload) reuse(ctx context.Context, c target.Conn, o workload.InitOptions) (err error) {
	w.loaded, err = workload.Reuse(ctx, c, dataName, "TPC-C", w.Settings(), o, func() (string, error) {
		var n int64
		if err := target.QueryRow(ctx, c, "SELECT count(*) FROM warehouse", nil, &n); err != nil {
			return "", fmt.Errorf("counting the existing warehouses: %w", err)
		}
		return fmt.Sprintf("%d warehouses", n), nil
	})
	if err != nil {
		return err
	}
	s := w.Settings() // now what the data was made with
	w.sc.warehouses, _ = s["warehouses"].(int)
	w.sc.items, _ = s["items"].(int)
	w.sc.customers, _ = s["customers_per_district"].(int)
	return nil
}

var _ workload.Starter = (*Workload)(nil)

// Start reads the load's NURand constants and draws the run's from them
// (clause 2.1.6.1), counts the rows and records the money for the check.
func (w *Workload) Start(ctx context.Context, c target.Conn) error {
	if err := target.QueryRow(ctx, c, "SELECT c_last, c_id, ol_i_id FROM "+nurandTable, nil, &w.load.last, &w.load.cid, &w.load.item); err != nil {
		return fmt.Errorf("reading the NURand constants of the load: %w", err)
	}
	w.run = runConstants(stream(w.seed, "nurand-run", 0), w.load)
	if err := checkConstants(w.load, w.run); err != nil {
		return err
	}
	w.lastNames = min(names, w.sc.customers)
	w.data = map[string]int64{}
	for _, t := range tables {
		var n int64
		if err := target.QueryRow(ctx, c, "SELECT count(*) FROM "+t, nil, &n); err != nil {
			return fmt.Errorf("counting %s before the run: %w", t, err)
		}
		w.data[t] = n
	}
	if w.active > w.sc.warehouses {
		return fmt.Errorf("--active-warehouses %d is more than the %d warehouses loaded: give at most %d", w.active, w.sc.warehouses, w.sc.warehouses)
	}
	if w.data["warehouse"] != int64(w.sc.warehouses) {
		return fmt.Errorf("%d warehouses in the database, %d loaded: load again with --reinit", w.data["warehouse"], w.sc.warehouses)
	}
	m, err := w.money(ctx, c)
	if err != nil {
		return fmt.Errorf("reading the money before the run: %w", err)
	}
	w.base = m
	w.tally = tally{} // before any client runs
	return nil
}

// tally is what the clients count as they run.
type tally struct {
	newOrders        atomic.Int64 // New-Orders committed
	rollbacks        atomic.Int64 // New-Orders rolled back on an unused item
	deliveries       atomic.Int64 // Deliveries committed
	paidCents        atomic.Int64 // Payments committed, in cents
	unknownCommits   atomic.Int64 // commits of unknown outcome
	unknownPaidCents atomic.Int64 // Payments whose commit outcome is unknown
}

var _ workload.DataReporter = (*Workload)(nil)

// Data is what Start found: the rows of each table.
func (w *Workload) Data() map[string]int64 { return w.data }

var _ workload.Noter = (*Workload)(nil)

// Notes say what the run is not: the specification's scale and waits,
// and how the engine's SQL differs.
func (w *Workload) Notes() []string {
	var notes []string
	if w.engineNote != "" {
		notes = append(notes, w.engineNote)
	}
	if w.sc.items != specItems || w.sc.customers != specCustomers {
		notes = append(notes, fmt.Sprintf("TPC-C-like at a reduced scale (--items %d, --customers-per-district %d): not the specification's cardinalities", w.sc.items, w.sc.customers))
	}
	if !w.wait {
		notes = append(notes, "no keying or think times (--wait=false): tpmC is not comparable with the 12.86 per warehouse of the specification")
	}
	return notes
}

// NewClient makes terminal id: it works on warehouse id mod W of the W
// active ones and, for Stock-Level, on district (id div W) mod 10 (clause
// 2.8.1.1).
func (w *Workload) NewClient(id int, rng *rand.Rand) workload.Client {
	return newClient(w, id, rng)
}
