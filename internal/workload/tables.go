package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
)

// ErrNotOurs ends the message of the error about tables of a workload's
// names that txnbench did not make; the command line treats it as a
// usage error (exit status 2).
var ErrNotOurs = errors.New("--reinit drops them and loads anew (or give another database)")

// Schema is the tables a workload makes, and the name of their mark in
// the txnbench_meta table. The mark is txnbench's signature on them: Init
// writes it, empty, before it drops or creates a table (the load began),
// and fills in the settings once the load finished (MarkLoaded). So a
// table of these names is txnbench's when the mark is there, finished or
// not: an interrupted load leaves the mark begun, and is txnbench's to
// make anew. Without a mark the tables are someone else's (another tool's
// of the same names, say go-tpc's TPC-C tables), and only --reinit drops
// them.
type Schema struct {
	Data  string   // the mark's name ("tpcc")
	What  string   // how messages name the tables ("TPC-C tables")
	Names []string // every table the workload makes
	// Standard: the tables of a standard benchmark (pgbench's, YCSB's,
	// sysbench's), which that benchmark's own tool makes too: a complete
	// set without the mark is used as it is, as that tool would use it.
	// A partial one is still never dropped without --reinit.
	Standard bool
}

// Prepare decides, for every workload alike, what Init does with the
// tables of t it finds. create means Init makes them anew: none was
// there, or o.Fresh asked (Prepare says which it drops), or txnbench's own
// load left some of them (an interrupted one); Prepare has then marked the
// load begun, and Init ends it with MarkLoaded. Otherwise Init uses the
// tables found: all of them, with txnbench's mark (whether its load
// finished is Reuse's to say), or Standard ones. Tables of t's names
// without the mark are refused, naming them (ErrNotOurs).
func (t Schema) Prepare(ctx context.Context, c target.Conn, o InitOptions) (create bool, err error) {
	found, err := t.found(ctx, c)
	if err != nil {
		return false, err
	}
	if len(found) > 0 && !o.Fresh {
		_, begun, err := readMark(ctx, c, t.Data)
		if err != nil {
			return false, err
		}
		complete := len(found) == len(t.Names)
		switch {
		case !begun && !(t.Standard && complete):
			return false, fmt.Errorf("the database has %s that txnbench did not make (no %s mark in %s): %s: %w",
				t.What, t.Data, metaTable, strings.Join(found, ", "), ErrNotOurs)
		case complete:
			return false, nil
		}
		o.Progress(fmt.Sprintf("making the %s anew: they are txnbench's, but only %s of them are there", t.What, strings.Join(found, ", ")))
	}
	if len(found) > 0 && o.Fresh {
		o.Progress(fmt.Sprintf("--reinit: dropping the %s %s", t.What, strings.Join(found, ", ")))
	}
	return true, BeginLoad(ctx, c, t.Data)
}

// Missing lists the tables of t that do not exist (probed as found does).
func (t Schema) Missing(ctx context.Context, c target.Conn) ([]string, error) {
	found, err := t.found(ctx, c)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, name := range t.Names {
		if !slices.Contains(found, name) {
			missing = append(missing, name)
		}
	}
	return missing, nil
}

// found lists the tables of t that exist, each probed by a query that
// fails only when its table is missing. Only "no such table" means
// missing: any other error (a timeout, a permission) is returned, never
// taken as leave to create the tables.
func (t Schema) found(ctx context.Context, c target.Conn) ([]string, error) {
	var found []string
	for _, name := range t.Names {
		rows, err := c.Query(ctx, "SELECT 1 FROM "+name+" WHERE 1 = 0")
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		switch {
		case target.IsUndefinedTable(err):
		case err != nil:
			return nil, fmt.Errorf("looking for the %s: %w", t.What, err)
		default:
			found = append(found, name)
		}
	}
	return found, nil
}

// Make is the start of a workload's Init: Prepare's decision on the
// tables of t, then either the tables found put to use by reuse (nil:
// nothing to do) or new ones made, drop then ddl (CreateTables, what
// naming them). create says they are new: Init loads them and ends with
// MarkLoaded.
func (t Schema) Make(ctx context.Context, c target.Conn, o InitOptions, drop, ddl []string, what string, reuse func() error) (create bool, err error) {
	if create, err = t.Prepare(ctx, c, o); err != nil || !create {
		if err == nil && reuse != nil {
			err = reuse()
		}
		return false, err
	}
	return true, CreateTables(ctx, c, drop, ddl, what)
}

// CreateTables drops a workload's old tables and creates them anew, each
// statement in order: drop, then ddl. what names the tables in an error
// ("creating the schema: ...").
func CreateTables(ctx context.Context, c target.Conn, drop, ddl []string, what string) error {
	for _, q := range drop {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("dropping the old %s: %w", what, err)
		}
	}
	for _, q := range ddl {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating the %s: %w", what, err)
		}
	}
	return nil
}

// ExistingDataUser is a workload told to use the data already in the
// database and load none (script's --no-init with builtin scripts, which
// would otherwise load their tables where they are missing). UsesExisting
// names the flag that told it, "" when none did.
type ExistingDataUser interface {
	UsesExisting() string
}

// CheckExistingData refuses, before anything starts, a workload told to
// use the data already there (ExistingDataUser) on a database that
// starts empty (a throwaway one, db: there is none to use), or where load
// asks for the data to be loaded: "init" (the command) or "--reinit"
// ("" when nothing does).
func CheckExistingData(w Workload, db target.Spec, load string) error {
	u, ok := w.(ExistingDataUser)
	if !ok || u.UsesExisting() == "" {
		return nil
	}
	flag := u.UsesExisting()
	switch {
	case load == "init":
		return fmt.Errorf("init loads the data and %s says to load none: leave %s out", flag, flag)
	case load != "":
		return fmt.Errorf("%s with %s: one uses the data already there, the other loads it anew; choose one", flag, load)
	case db.Temporary() && db.Embedded():
		return fmt.Errorf("%s uses the data already in the database, and the temporary SQLite file of a run without --db starts empty: give --db where the data is, or leave %s out to load it", flag, flag)
	case db.Throwaway():
		return fmt.Errorf("%s uses the data already in the database, and --db %s starts empty: give --db where the data is, or leave %s out to load it", flag, db, flag)
	}
	return nil
}

// EmbeddedChecker is a workload with options an embedded database (SQLite)
// cannot honour (pgbench's --partitions, say): CheckEmbedded refuses them
// before anything starts, where the run would find out once the database
// is open.
type EmbeddedChecker interface {
	CheckEmbedded() error
}

// CheckDatabase refuses, before anything starts, what w's options cannot
// do on db, where db's kind says it (an embedded database).
func CheckDatabase(w Workload, db target.Spec) error {
	if c, ok := w.(EmbeddedChecker); ok && db.Embedded() {
		return c.CheckEmbedded()
	}
	return nil
}
