package pgbenchscript

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	pgscript "github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Sizes are the data txnbench's own builtin scripts run on: YCSB's
// records, sysbench's tables and rows per table.
type Sizes struct {
	RecordCount int64
	Tables      int
	TableSize   int64
}

// extraState is what a run of txnbench's own builtins keeps: its block of
// insert keys, and the inserts its clients made.
type extraState struct {
	// first and last are the run's block of insert keys (insertBlocks);
	// stray counts, by table, the inserted rows in no run's block as the
	// run starts.
	first, last int64
	stray       map[string]int64
	// inserts counts the transactions that inserted a row and committed;
	// uncertain those that tried and failed, perhaps after the row was
	// written (a commit whose outcome is unknown).
	inserts, uncertain atomic.Int64
}

// families reports which families of builtin scripts the run uses.
func (w *Workload) families() map[pgscript.Family]bool {
	f := map[pgscript.Family]bool{}
	for i, src := range w.Sources {
		if src.Builtin && i < len(w.scripts) {
			f[pgscript.FamilyOf(w.scripts[i].Name)] = true
		}
	}
	return f
}

// extraTables are the tables of txnbench's own builtins the run uses, by
// name, with their key column.
func (w *Workload) extraTables() [][2]string {
	var t [][2]string
	fam := w.families()
	if fam[pgscript.FamilyYCSB] {
		t = append(t, [2]string{"usertable", "ycsb_key"})
	}
	if fam[pgscript.FamilySysbench] {
		for i := 1; i <= w.Sizes.Tables; i++ {
			t = append(t, [2]string{fmt.Sprintf("sbtest%d", i), "id"})
		}
	}
	return t
}

// The largest sizes of txnbench's own builtins' data: loaded keys stay
// below the keys of inserted rows (setup.InsertKeys), and sysbench's
// tables are each a table of their own in the database.
const (
	maxRows   = setup.InsertKeys - 1
	maxTables = 10_000
)

// validateSizes reads the data's sizes, from -D NAME=VALUE where given
// for a family of builtins the run uses, else from their flags, and
// checks each is in its range.
func (w *Workload) validateSizes() error {
	fam := w.families()
	tables := int64(w.Sizes.Tables)
	for _, sz := range []struct {
		flag, define string
		used         bool // the run's builtins read the -D variable
		v            *int64
		max          int64
	}{
		{"--record-count", "record_count", fam[pgscript.FamilyYCSB], &w.Sizes.RecordCount, maxRows},
		{"--tables", "tables", fam[pgscript.FamilySysbench], &tables, maxTables},
		{"--table-size", "table_size", fam[pgscript.FamilySysbench], &w.Sizes.TableSize, maxRows},
	} {
		what := fmt.Sprintf("%s %d", sz.flag, *sz.v)
		if d, ok := w.defines[sz.define]; ok && sz.used {
			what = fmt.Sprintf("-D %s=%s", sz.define, d)
			n, err := strconv.ParseInt(d, 10, 64)
			if err != nil {
				n = 0
			}
			*sz.v = n
		}
		if *sz.v < 1 || *sz.v > sz.max {
			return fmt.Errorf("%s: give a whole number from 1 to %d", what, sz.max)
		}
	}
	w.Sizes.Tables = int(tables)
	return nil
}

// initExtras loads (or finds) the data of txnbench's own builtins and
// defines the variables their scripts read (pgscript.ExtraVars).
func (w *Workload) initExtras(ctx context.Context, c target.Conn, o workload.InitOptions) (created bool, err error) {
	fam := w.families()
	if !fam[pgscript.FamilyYCSB] && !fam[pgscript.FamilySysbench] {
		return false, nil
	}
	if fam[pgscript.FamilyYCSB] {
		ycsb := workload.Schema{Data: "ycsb", What: "YCSB table", Names: []string{"usertable"}, Standard: true}
		n, made, err := w.ensure(ctx, c, o, ycsb, "ycsb_key", w.Sizes.RecordCount, func() error {
			return setup.YCSB(ctx, c, w.Sizes.RecordCount)
		})
		if err != nil {
			return false, err
		}
		w.Sizes.RecordCount, created = n, made
	}
	if fam[pgscript.FamilySysbench] {
		sb := workload.Schema{Data: "sysbench", What: "sysbench tables", Standard: true}
		for i := 1; i <= w.Sizes.Tables; i++ {
			sb.Names = append(sb.Names, fmt.Sprintf("sbtest%d", i))
		}
		create, err := w.prepare(ctx, c, o, sb)
		if err != nil {
			return false, err
		}
		if create {
			o.Progress(fmt.Sprintf("loading %d sysbench tables of %d rows", w.Sizes.Tables, w.Sizes.TableSize))
			if err := setup.Sysbench(ctx, c, w.Sizes.Tables, w.Sizes.TableSize); err != nil {
				return false, err
			}
			if err := workload.MarkLoaded(ctx, c, sb.Data, nil); err != nil {
				return false, err
			}
			created = true
		} else if k, err := setup.ReadKeys(ctx, c, "sbtest1", "id"); err != nil {
			return false, err
		} else if k.Loaded < 1 {
			return false, noRows("sbtest1")
		} else if k.Loaded != w.Sizes.TableSize {
			o.Progress(fmt.Sprintf("sbtest1 has %d loaded rows: using them, not %d (--reinit loads anew)", k.Loaded, w.Sizes.TableSize))
			w.Sizes.TableSize = k.Loaded
		}
	}
	if err := insertBlocks.Create(ctx, c); err != nil {
		return false, err
	}
	vars := map[string]int64{ // insert_base comes with the run's block, in Start
		"record_count": w.Sizes.RecordCount, "tables": int64(w.Sizes.Tables), "table_size": w.Sizes.TableSize,
		"insert_base": setup.InsertKeys, "clients": int64(w.clients), "seq": 0, "inserted": 0,
	}
	for _, name := range pgscript.ExtraVars {
		w.defines[name] = strconv.FormatInt(vars[name], 10)
	}
	w.extra = &extraState{}
	return created, nil
}

// ensure finds the loaded rows of s's one table, loading n first when the
// table is missing or o.Fresh asks (w.prepare); an existing table's size
// wins, as pgbench's scale does.
func (w *Workload) ensure(ctx context.Context, c target.Conn, o workload.InitOptions, s workload.Schema, key string, n int64, load func() error) (int64, bool, error) {
	table := s.Names[0]
	create, err := w.prepare(ctx, c, o, s)
	if err != nil {
		return 0, false, err
	}
	if !create {
		k, err := setup.ReadKeys(ctx, c, table, key)
		if err != nil {
			return 0, false, err
		}
		if k.Loaded < 1 {
			return 0, false, noRows(table)
		}
		if k.Loaded != n {
			o.Progress(fmt.Sprintf("%s has %d loaded rows: using them, not %d (--reinit loads anew)", table, k.Loaded, n))
		}
		return k.Loaded, false, nil
	}
	o.Progress(fmt.Sprintf("loading %s: %d rows", table, n))
	if err := load(); err != nil {
		return 0, false, err
	}
	return n, true, workload.MarkLoaded(ctx, c, s.Data, nil)
}

// noRows is why a standard table found without a loaded row (another
// tool made it, empty) is not run on: every op would pick a key from an
// empty range.
func noRows(table string) error {
	return fmt.Errorf("%s is there without a row to read (made by another tool, empty): load it, or %w", table, workload.ErrIncompleteData)
}

// insertBlocks are the runs' blocks of keys for the rows txnbench's own
// builtins insert: each run inserts in a block of 2^32 keys of its own,
// so that two runs at once never insert the same key (insert_base is its
// block's first), and its check counts the rows of its block alone.
var insertBlocks = workload.IDBlocks{Table: "txnbench_insert_blocks", Origin: setup.InsertKeys, Bits: 32, What: "insert keys"}

var _ workload.ExistingDataUser = (*Workload)(nil)

// UsesExisting is "--no-init" when --no-init is given with builtin
// scripts: their tables are used as they are in the database, and none is
// created or loaded (workload.ExistingDataUser).
func (w *Workload) UsesExisting() string {
	if builtin := slices.ContainsFunc(w.Sources, func(s Source) bool { return s.Builtin }); w.NoInit && builtin {
		return "--no-init"
	}
	return ""
}

// prepare is s.Prepare (what Init does with the tables it finds), unless
// --no-init says to use the tables already there: then every one of them
// must be there, and nothing is marked, dropped or made.
func (w *Workload) prepare(ctx context.Context, c target.Conn, o workload.InitOptions, s workload.Schema) (create bool, err error) {
	flag := w.UsesExisting()
	if flag == "" {
		return s.Prepare(ctx, c, o)
	}
	missing, err := s.Missing(ctx, c)
	if err != nil || len(missing) == 0 {
		return false, err
	}
	return false, fmt.Errorf("%s: the builtin scripts' tables (%s) are not in the database: load them first (txnbench init script with the same -b and --db) or leave %s out", flag, strings.Join(missing, ", "), flag)
}

// startExtras takes the run's block of insert keys and counts the stray
// rows of the tables of txnbench's own builtins.
func (w *Workload) startExtras(ctx context.Context, c target.Conn) error {
	if w.extra == nil {
		return nil
	}
	tables := w.extraTables()
	first, last, err := insertBlocks.Take(ctx, c, func() (top int64, err error) {
		for _, t := range tables { // keys of runs before blocks
			next, err := setup.NextKey(ctx, c, t[0], t[1])
			if err != nil {
				return 0, err
			}
			top = max(top, next-1)
		}
		return top, nil
	})
	if err != nil {
		return err
	}
	w.extra.first, w.extra.last = first, last
	w.defines["insert_base"] = strconv.FormatInt(first, 10)
	w.extra.stray = map[string]int64{}
	for _, t := range tables {
		if w.extra.stray[t[0]], err = w.strayRows(ctx, c, t); err != nil {
			return err
		}
	}
	return nil
}

// strayRows counts table t's inserted rows in no run's block.
func (w *Workload) strayRows(ctx context.Context, c target.Conn, t [2]string) (n int64, err error) {
	if err := target.QueryRow(ctx, c, "SELECT count(*) FROM "+t[0]+" WHERE "+insertBlocks.Stray(t[1]), nil, &n); err != nil {
		return 0, fmt.Errorf("counting %s's inserted rows outside the runs' blocks: %w", t[0], err)
	}
	return n, nil
}

// ownRows counts table t's rows in the run's block.
func (w *Workload) ownRows(ctx context.Context, c target.Conn, t [2]string) (n int64, err error) {
	q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s BETWEEN $1 AND $2", t[0], t[1])
	if err := target.QueryRow(ctx, c, q, []any{w.extra.first, w.extra.last}, &n); err != nil {
		return 0, fmt.Errorf("counting the rows this run inserted in %s: %w", t[0], err)
	}
	return n, nil
}

// checkExtras verifies that every loaded row of the tables of txnbench's
// own builtins survived (keys 1 to N, N of them: sysbench's delete and
// insert of one row are one transaction) and that the rows inserted in
// the run's block, and any new ones in no run's block, are the inserts
// that committed (no more than those plus the ones of unknown outcome):
// another run's inserts at the same time, in its own block, are not
// counted.
func (w *Workload) checkExtras(ctx context.Context, c target.Conn, ch *result.Check) error {
	if w.extra == nil {
		return nil
	}
	var inserted int64
	var bad []string
	for _, t := range w.extraTables() {
		k, err := setup.ReadKeys(ctx, c, t[0], t[1])
		if err != nil {
			return err
		}
		n := w.Sizes.TableSize
		if t[0] == "usertable" {
			n = w.Sizes.RecordCount
		}
		if k.Loaded != n || (n > 0 && (k.Min != 1 || k.Max != n)) {
			bad = append(bad, fmt.Sprintf("%s has %d loaded rows with keys %d to %d, want %d rows with keys 1 to %d",
				t[0], k.Loaded, k.Min, k.Max, n, n))
		}
		own, err := w.ownRows(ctx, c, t)
		if err != nil {
			return err
		}
		stray, err := w.strayRows(ctx, c, t)
		if err != nil {
			return err
		}
		// another run's rows are in its own block; a row in none is
		// one no builtin committed
		inserted += own + stray - w.extra.stray[t[0]]
	}
	detail := fmt.Sprintf("%d tables, every loaded row there", len(w.extraTables()))
	if len(bad) > 0 {
		detail = bad[0]
		if len(bad) > 1 {
			detail += fmt.Sprintf(" (and %d more tables)", len(bad)-1)
		}
	}
	ch.Add("row count and key range", len(bad) == 0, "%s", detail)
	committed, uncertain := w.extra.inserts.Load(), w.extra.uncertain.Load()
	if slices.Contains(w.inserts, true) || committed+uncertain > 0 || inserted != 0 {
		ch.Add("inserted rows match commits", inserted >= committed && inserted <= committed+uncertain,
			"%d rows inserted, %d inserts committed, %d of unknown outcome", inserted, committed, uncertain)
	}
	return nil
}

// counted records one transaction of a script of txnbench's own: an
// insert that committed, or one that failed after trying.
func (w *Workload) counted(tried bool, err error) {
	if w.extra == nil || !tried {
		return
	}
	if err == nil {
		w.extra.inserts.Add(1)
	} else {
		w.extra.uncertain.Add(1)
	}
}

// validateExtras checks the sizes, and that sysbench's scripts, which
// name their table by a variable (sbtest:table_id), run in the simple
// protocol: the others send variables as parameters, which cannot name
// a table.
func (w *Workload) validateExtras() error {
	fam := map[pgscript.Family]bool{}
	for i, src := range w.Sources {
		if src.Builtin {
			fam[pgscript.FamilyOf(w.scripts[i].Name)] = true
		}
	}
	if fam[pgscript.FamilySysbench] && w.mode != target.QuerySimple {
		return fmt.Errorf("the oltp-* scripts pick their table by name (sbtest:table_id): run them with -M simple, not %s", w.Mode)
	}
	return w.validateSizes()
}
