package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// DataReporter is implemented by a workload that loads data: Data is what
// its Start found (row counts by table, or pgbench's scale), recorded in
// the Result as the data the run really had.
type DataReporter interface {
	Data() map[string]int64
}

// ErrIncompleteData ends the message of an error about data that an
// earlier load left incomplete; the command line treats it as a usage
// error (exit status 2).
var ErrIncompleteData = errors.New("run with --reinit to load it again")

// Loaded are the settings a workload's data was made with, kept in the
// txnbench_meta table as the mark that a load finished.
type Loaded struct {
	Rows    int    `json:"rows"`
	Seed    uint64 `json:"seed"`
	Variant string `json:"variant,omitempty"`
}

// metaTable holds one row per finished load, keyed by the data's name.
const metaTable = "txnbench_meta"

// ClearLoaded removes name's completeness mark, creating the table that
// holds the marks if it is missing. A load calls it before it changes
// anything, so an interrupted load leaves no mark.
func ClearLoaded(ctx context.Context, c target.Conn, name string) error {
	if _, err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+metaTable+" (name TEXT PRIMARY KEY, loaded TEXT NOT NULL)"); err != nil {
		return fmt.Errorf("creating %s: %w", metaTable, err)
	}
	if _, err := c.Exec(ctx, "DELETE FROM "+metaTable+" WHERE name = $1", name); err != nil {
		return fmt.Errorf("clearing the load mark of %s: %w", name, err)
	}
	return nil
}

// MarkLoaded records that name's load finished, with the settings it was
// made with. It runs after the last step of the load.
func MarkLoaded(ctx context.Context, c target.Conn, name string, l Loaded) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "INSERT INTO "+metaTable+" (name, loaded) VALUES ($1, $2)", name, string(b)); err != nil {
		return fmt.Errorf("marking the load of %s finished: %w", name, err)
	}
	return nil
}

// ReadLoaded returns the settings name's data was made with; ok is false
// when no finished load is recorded.
func ReadLoaded(ctx context.Context, c target.Conn, name string) (l Loaded, ok bool, err error) {
	rows, err := c.Query(ctx, "SELECT loaded FROM "+metaTable+" WHERE name = $1", name)
	if target.IsUndefinedTable(err) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("reading the load mark of %s: %w", name, err)
	}
	defer rows.Close()
	var s string
	for rows.Next() {
		if err := rows.Scan(&s); err != nil {
			return l, false, err
		}
		ok = true
	}
	if err := rows.Err(); err != nil {
		return l, false, fmt.Errorf("reading the load mark of %s: %w", name, err)
	}
	if !ok {
		return l, false, nil
	}
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return l, false, fmt.Errorf("reading the load mark of %s: %w", name, err)
	}
	return l, true, nil
}

// IncompleteData is the error about name's data being there without the
// mark of a finished load.
func IncompleteData(name string) error {
	return fmt.Errorf("the %s data in the database is incomplete (an earlier load was interrupted, or it was made without txnbench's completeness mark): %w", name, ErrIncompleteData)
}
