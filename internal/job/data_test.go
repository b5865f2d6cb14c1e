package job

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
	_ "github.com/txnbench/txnbench/internal/workload/pgbenchscript"
)

// logLines collects a spec's status lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *logLines) find(sub string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return s
		}
	}
	return ""
}

// dbs are the databases the data tests run on: SQLite always, PostgreSQL
// when its binaries are here.
func dbs(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "te.db") },
		"postgres": func(t *testing.T) string { return testutil.SharedPostgres(t) },
	}
}

// TestExistingDataIsRecorded: a run on data loaded with --rows 200 but
// asked for --rows 5000 says the existing data is used, records the rows
// it was made with, and counts what it found.
func TestExistingDataIsRecorded(t *testing.T) {
	t.Parallel()
	for name, newDB := range dbs(t) {
		t.Run(name, func(t *testing.T) {
			url := newDB(t)
			first := run(t, spec(t, url, runner.Config{Clients: 2, Iterations: 5}, "--rows", "200"))
			if want := map[string]int64{"events": 200, "status": 200, "archived": 0}; fmt.Sprint(first.Data) != fmt.Sprint(want) {
				t.Errorf("first run's data %v, want %v", first.Data, want)
			}
			var total int64
			if _, err := fmt.Sscanf(first.Invariants.Items[0].Detail, "%d events", &total); err != nil || total < 200 {
				t.Fatalf("first run's check: %q", first.Invariants.Items[0].Detail)
			}
			var log logLines
			s := spec(t, url, runner.Config{Clients: 2, Iterations: 5}, "--rows", "5000")
			s.Fresh, s.Log = false, log.log
			r := run(t, s)
			if r.Settings["rows"] != 200 {
				t.Errorf("settings rows = %v, want the 200 the data was loaded with", r.Settings["rows"])
			}
			if got := r.Data["events"] + r.Data["archived"]; got != total || r.Data["status"] != r.Data["events"] {
				t.Errorf("data %v: want %d events live or archived, one status each", r.Data, total)
			}
			want := fmt.Sprintf("using the existing train-events data: %d events, loaded with --rows 200 (--rows 5000 applies only with --reinit)", r.Data["events"])
			if log.find(want) == "" {
				t.Errorf("no status line %q in %q", want, log.lines)
			}
		})
	}
}

// TestIncompleteLoadIsRefused interrupts a load (and, separately, removes
// the mark of a finished one, which makes the tables not txnbench's): the
// next Init refuses the data naming --reinit, and --reinit loads it again.
func TestIncompleteLoadIsRefused(t *testing.T) {
	ctx := context.Background()
	url := "sqlite:" + filepath.Join(t.TempDir(), "te.db")
	s := spec(t, url, runner.Config{Clients: 1}, "--rows", "200000")
	db := openDB(t, s, 1)

	// Cancel the load once its first batch is in.
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := Init(lctx, s, db); done <- err }()
	probe := testutil.Session(t, db)
	if !testutil.Poll(30*time.Second, 10*time.Millisecond, func() bool { return testutil.CountRows(probe, "events_jsonb") > 0 }) {
		t.Fatal("the load never started")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the load finished before it was interrupted: give more --rows")
	}

	s.Fresh = false
	_, err := Init(ctx, s, db)
	if !errors.Is(err, workload.ErrIncompleteData) || !strings.Contains(err.Error(), "--reinit") {
		t.Fatalf("Init after an interrupted load: %v, want the incomplete-data error naming --reinit", err)
	}

	// --reinit loads it again; then removing the mark is refused too.
	s = spec(t, url, runner.Config{Clients: 1}, "--rows", "50")
	if created, err := Init(ctx, s, db); err != nil || !created {
		t.Fatalf("Init with Fresh: created %v, %v", created, err)
	}
	s.Fresh = false
	if created, err := Init(ctx, s, db); err != nil || created {
		t.Fatalf("Init on complete data: created %v, %v", created, err)
	}
	if _, err := probe.Exec(ctx, "DELETE FROM txnbench_meta"); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(ctx, s, db); !errors.Is(err, workload.ErrNotOurs) {
		t.Fatalf("Init without the mark: %v", err)
	}
}

// TestConnectOverheadData: connect-overhead marks its load, refuses tables
// without the mark (not txnbench's), and records what it found and was made with.
func TestConnectOverheadData(t *testing.T) {
	ctx := context.Background()
	url := "sqlite:" + filepath.Join(t.TempDir(), "co.db")
	mk := func(rows string) Spec {
		return Spec{DB: dbSpec(t, url), Name: "connect-overhead", Workload: newWorkload(t, "connect-overhead", "--rows", rows),
			Runner: runner.Config{Clients: 1, Iterations: 5, MaxTries: 1, Seed: 1, Progress: time.Second}, Fresh: true, Version: "test"}
	}
	run(t, mk("40"))
	var log logLines
	s := mk("1000")
	s.Fresh, s.Log = false, log.log
	r := run(t, s)
	if r.Settings["rows"] != 40 || r.Data["users"] != 40 || r.Data["orders"] == 0 || r.Data["order_items"] == 0 {
		t.Errorf("settings %v data %v: want rows 40 and the counts found", r.Settings, r.Data)
	}
	if want := "using the existing connect-overhead data: 40 users, loaded with --rows 40 (--rows 1000 applies only with --reinit)"; log.find(want) == "" {
		t.Errorf("no status line %q in %q", want, log.lines)
	}
	db := openDB(t, s, 1)
	if err := withConn(ctx, db, func(c target.Conn) error {
		_, err := c.Exec(ctx, "DELETE FROM txnbench_meta")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(ctx, s, db); !errors.Is(err, workload.ErrNotOurs) {
		t.Fatalf("Init without the mark: %v", err)
	}
}

// TestScriptRecordsTheTablesScale: the pgbench tables' scale, read from
// pgbench_branches, is what the Result records, not --scale.
func TestScriptRecordsTheTablesScale(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	mk := func(scale string) Spec {
		return Spec{DB: dbSpec(t, url), Name: "script", Workload: newWorkload(t, "script", "-b", "select-only", "--scale", scale),
			Runner: runner.Config{Clients: 1, Iterations: 5, MaxTries: 1, Seed: 1, Progress: time.Second}, Fresh: true, Version: "test"}
	}
	run(t, mk("1"))
	s := mk("3")
	s.Fresh = false
	r := run(t, s)
	if r.Settings["scale"] != 1 || r.Data["scale"] != 1 {
		t.Errorf("settings %v data %v: want scale 1, the tables'", r.Settings, r.Data)
	}
}

// TestConcurrentInit: four Inits racing on a fresh database all succeed
// and exactly one creates the schema; with Fresh each recreates it in
// turn. A held schema lock makes Init wait and say so.
func TestConcurrentInit(t *testing.T) {
	t.Parallel()
	for name, newDB := range dbs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			url := newDB(t)
			for _, fresh := range []bool{false, true} {
				var wg sync.WaitGroup
				var mu sync.Mutex
				created := 0
				for i := 0; i < 4; i++ {
					s := spec(t, url, runner.Config{Clients: 1}, "--rows", "300")
					s.Fresh = fresh
					wg.Add(1)
					go func() {
						defer wg.Done()
						db, err := Open(ctx, s, 1)
						if err != nil {
							t.Error(err)
							return
						}
						defer db.Close()
						c, err := Init(ctx, s, db)
						if err != nil {
							t.Errorf("Init (fresh %v): %v", fresh, err)
						}
						mu.Lock()
						defer mu.Unlock()
						if c {
							created++
						}
					}()
				}
				wg.Wait()
				if want := map[bool]int{false: 1, true: 4}[fresh]; created != want {
					t.Errorf("fresh %v: %d Inits created the schema, want %d", fresh, created, want)
				}
			}

			// Hold the lock as another txnbench would.
			var log logLines
			s := spec(t, url, runner.Config{Clients: 1}, "--rows", "30")
			s.Log = log.log
			db := openDB(t, s, 1)
			holder := testutil.Session(t, db)
			unlock, err := target.LockSchema(ctx, db.Target, holder, "train-events", func(string) { t.Error("the lock was free") })
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Init(ctx, s, db); done <- err }()
			want := "waiting for another txnbench creating the train-events schema ("
			if !testutil.Poll(30*time.Second, 10*time.Millisecond, func() bool { return log.find(want) != "" }) {
				t.Fatalf("no status line %q in %q", want, log.lines)
			}
			unlock()
			if err := <-done; err != nil {
				t.Fatalf("Init after the lock was released: %v", err)
			}
			if name == "postgres" && log.find(fmt.Sprintf("(advisory lock %d)", target.SchemaLockKey("train-events"))) == "" {
				t.Errorf("status line does not name the advisory lock: %q", log.lines)
			}
		})
	}
}

// TestExistingDataSeedIsRecorded: a run over data made with --rows 200
// --seed 1 but asked for --rows 5000 --seed 2 records rows 200 and the
// data's seed 1 (the run's own seed stays 2), and says --rows did not apply.
func TestExistingDataSeedIsRecorded(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "te.db")
	first := spec(t, url, runner.Config{Clients: 1, Iterations: 5}, "--rows", "200")
	first.Runner.Seed = 1
	run(t, first)
	var log logLines
	s := spec(t, url, runner.Config{Clients: 1, Iterations: 5}, "--rows", "5000")
	s.Runner.Seed, s.Fresh, s.Log = 2, false, log.log
	r := run(t, s)
	if r.Settings["rows"] != 200 || r.Settings["data_seed"] != uint64(1) || r.Config.Seed != 2 {
		t.Errorf("settings %v seed %d: want rows 200, data_seed 1, seed 2", r.Settings, r.Config.Seed)
	}
	want := fmt.Sprintf("using the existing train-events data: %d events, loaded with --rows 200 (--rows 5000 applies only with --reinit)", r.Data["events"])
	if log.find(want) == "" {
		t.Errorf("no status line %q in %q", want, log.lines)
	}
}
