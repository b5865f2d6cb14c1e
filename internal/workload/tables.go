package workload

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// TablesExist is the first step of a workload's Init: whether its tables
// are there, each probe a query that fails only when its table is missing
// ("SELECT 1 FROM t LIMIT 0"). Only "no such table" means no: any other
// error (a timeout, a permission) is returned, never taken as leave to
// recreate the schema. what names the tables in that error.
func TablesExist(ctx context.Context, c target.Conn, probe []string, what string) (bool, error) {
	for _, q := range probe {
		rows, err := c.Query(ctx, q)
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		if target.IsUndefinedTable(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("looking for the %s: %w", what, err)
		}
	}
	return true, nil
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
	case db.Kind == target.SQLiteTemp:
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
