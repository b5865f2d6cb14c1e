package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/pflag"

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
// txnbench_meta table as the mark that a load finished: every data-shaping
// setting (see DataFlags) by its Settings key, and "seed", the run's seed
// the data derives from. Values are kept as JSON.
type Loaded map[string]json.RawMessage

// seedKey is the key of the seed in a Loaded.
const seedKey = "seed"

// LoadMark is the mark of a load made with the data-shaping settings among
// s (fs declares which) and seed.
func LoadMark(fs *pflag.FlagSet, s map[string]any, seed uint64) Loaded {
	l := Loaded{}
	for k, v := range DataSettings(fs, s) {
		l[k], _ = json.Marshal(v)
	}
	l[seedKey], _ = json.Marshal(seed)
	return l
}

// Differences lists, as flags sorted by name ("--rows 200"), the
// data-shaping settings the data was made with that differ from s; asked
// lists the same flags as s gives them. The seed is left out: it is a run
// flag that seeds the clients too, so it always applies to the run (Apply
// records the data's own).
func (l Loaded) Differences(s map[string]any) (made, asked []string) {
	for _, k := range slices.Sorted(maps.Keys(l)) {
		v, ok := s[k]
		if !ok || k == seedKey {
			continue
		}
		b, _ := json.Marshal(v)
		if string(b) != string(l[k]) {
			flag := "--" + strings.ReplaceAll(k, "_", "-")
			made = append(made, flag+" "+strings.Trim(string(l[k]), `"`))
			asked = append(asked, flag+" "+strings.Trim(string(b), `"`))
		}
	}
	return made, asked
}

// Apply records in s what the data was made with: each setting of l that
// s has, as the type s holds it in, and "data_seed" when the data's seed is
// not the run's seed.
func (l Loaded) Apply(s map[string]any, seed uint64) {
	for k, raw := range l {
		if k == seedKey {
			var ds uint64
			if json.Unmarshal(raw, &ds) == nil && ds != seed {
				s["data_seed"] = ds
			}
			continue
		}
		cur, ok := s[k]
		if !ok || cur == nil {
			continue
		}
		v := reflect.New(reflect.TypeOf(cur))
		if json.Unmarshal(raw, v.Interface()) == nil {
			s[k] = v.Elem().Interface()
		}
	}
}

// Reuse accepts the existing data marked name (what names the workload
// in messages) when its load finished, and says through o.Progress when it
// was made with other data-shaping settings than s asks for; count
// describes the data ("200 events") and is called only for that line. It
// returns the mark, for Apply.
func Reuse(ctx context.Context, c target.Conn, name, what string, s map[string]any, o InitOptions, count func() (string, error)) (Loaded, error) {
	l, _, err := readMark(ctx, c, name)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return nil, IncompleteData(name)
	}
	made, asked := l.Differences(s)
	if len(made) == 0 {
		return l, nil
	}
	n, err := count()
	if err != nil {
		return nil, err
	}
	verb := "applies"
	if len(asked) > 1 {
		verb = "apply"
	}
	o.Progress(fmt.Sprintf("using the existing %s data: %s, loaded with %s (%s %s only with --reinit)",
		what, n, strings.Join(made, " "), strings.Join(asked, " "), verb))
	return l, nil
}

// metaTable holds one row per load, keyed by the data's name (VARCHAR:
// every engine indexes it whole; MySQL does not index TEXT): loaded is
// empty while the load runs, and the settings it was made with (JSON) once
// it finished. The row is txnbench's mark on the tables (see Schema).
const metaTable = "txnbench_meta"

// BeginLoad marks name's load begun, creating the table that holds the
// marks if it is missing: the tables are txnbench's from here on, and not
// complete until MarkLoaded. A load calls it (through Schema.Prepare)
// before it changes anything, so an interrupted load leaves the mark begun.
func BeginLoad(ctx context.Context, c target.Conn, name string) error {
	if _, err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+metaTable+" (name VARCHAR(255) PRIMARY KEY, loaded TEXT NOT NULL)"); err != nil {
		return fmt.Errorf("creating %s: %w", metaTable, err)
	}
	if _, err := c.Exec(ctx, "DELETE FROM "+metaTable+" WHERE name = $1", name); err != nil {
		return fmt.Errorf("clearing the load mark of %s: %w", name, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO "+metaTable+" (name, loaded) VALUES ($1, '')", name); err != nil {
		return fmt.Errorf("marking the load of %s begun: %w", name, err)
	}
	return nil
}

// MarkLoaded records that name's load finished, with the settings it was
// made with. It runs after the last step of the load.
func MarkLoaded(ctx context.Context, c target.Conn, name string, l Loaded) error {
	if l == nil {
		l = Loaded{} // "null" would read as not finished
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "UPDATE "+metaTable+" SET loaded = $1 WHERE name = $2", string(b), name); err != nil {
		return fmt.Errorf("marking the load of %s finished: %w", name, err)
	}
	return nil
}

// readMark reads name's mark: begun when there is one, and l the settings
// the data was made with when its load finished (nil while it has not).
func readMark(ctx context.Context, c target.Conn, name string) (l Loaded, begun bool, err error) {
	var s string
	err = func() error {
		rows, err := c.Query(ctx, "SELECT loaded FROM "+metaTable+" WHERE name = $1", name)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := rows.Scan(&s); err != nil {
				return err
			}
			begun = true
		}
		return rows.Err()
	}()
	if target.IsUndefinedTable(err) { // PostgreSQL says so at the first row
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the load mark of %s: %w", name, err)
	}
	if s == "" {
		return nil, begun, nil
	}
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, true, fmt.Errorf("reading the load mark of %s: %w", name, err)
	}
	return l, true, nil
}

// IncompleteData is the error about name's data being there without the
// mark of a finished load.
func IncompleteData(name string) error {
	return fmt.Errorf("the %s data in the database is incomplete (an earlier load was interrupted): %w", name, ErrIncompleteData)
}
