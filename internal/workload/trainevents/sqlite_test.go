package trainevents

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/workload"
)

const initialRows = 200

// fastArgs make cycles run without pauses or think time.
var fastArgs = []string{"--rows", fmt.Sprint(initialRows), "--delay", "0", "--think-min", "0", "--think-max", "0", "--min-batch", "5", "--max-batch", "40"}

// openSQLite opens a SQLite file in a temporary directory.
func openSQLite(t *testing.T, path string) target.Target {
	t.Helper()
	tg := testutil.Open(t, "sqlite:"+path)
	return tg
}

// initWorkload validates args and runs Init, returning the workload, what
// Init said and the progress messages.
func initWorkload(t *testing.T, tg target.Target, c target.Conn, fresh bool, args ...string) (*Workload, bool, []string) {
	t.Helper()
	w := newTestWorkload(t, args...)
	var msgs []string
	created, err := w.Init(context.Background(), c, tg.Dialect(), workload.InitOptions{
		Fresh: fresh, Seed: 1, Progress: func(m string) { msgs = append(msgs, m) },
	})
	if err != nil {
		t.Fatalf("Init %q: %v", args, err)
	}
	return w, created, msgs
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, c target.Conn, q string, args ...any) int64 {
	t.Helper()
	rows, err := c.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var n int64
	if !rows.Next() {
		t.Fatalf("%s: no row (%v)", q, rows.Err())
	}
	if err := rows.Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func exec(t *testing.T, c target.Conn, q string) int64 {
	t.Helper()
	n, err := c.Exec(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// runCycles runs n cycles of cl on conn, one op after the other, retrying
// an op whose error is retryable, and returns the events added.
func runCycles(ctx context.Context, cl workload.Client, conn target.Conn, n int) (int, error) {
	added := 0
	for i := 0; i < n; i++ {
		cl.NextCycle() // the pause is the runner's business
		batch := cl.(*client).n
		for _, op := range cl.Ops() {
			var err error
			for try := 0; try < 20; try++ {
				if err = op.Run(ctx, conn); err == nil || !target.Classify(err).Retryable() {
					break
				}
			}
			if err != nil {
				return added, fmt.Errorf("cycle %d, op %s: %w", i, op.Name, err)
			}
			if op.Name == opAdd {
				added += batch
			}
		}
	}
	return added, nil
}

// checkOK runs Check and fails unless every item holds.
func checkOK(t *testing.T, w *Workload, c target.Conn) result.Check {
	t.Helper()
	ch, err := w.Check(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.OK || len(testutil.FailedItems(ch)) > 0 || len(ch.Items) != 5 {
		t.Fatalf("check failed: %+v", ch)
	}
	return ch
}

func TestSQLiteCycles(t *testing.T) {
	ctx := context.Background()
	for _, p := range presetOrder {
		t.Run(p, func(t *testing.T) {
			tg := openSQLite(t, filepath.Join(t.TempDir(), "x.db"))
			conn := testutil.Session(t, tg)
			w, created, msgs := initWorkload(t, tg, conn, true, append([]string{"--variant", p}, fastArgs...)...)
			if !created {
				t.Fatal("Init on an empty database did not create the schema")
			}
			if !slices.Contains(msgs, fmt.Sprintf("loaded %d of %d initial events", initialRows, initialRows)) {
				t.Errorf("progress %q does not report the load", msgs)
			}
			if hasNote := slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "no inverted index") }); hasNote != (p == "jsonb") {
				t.Errorf("progress %q: inverted-index note %v, want %v", msgs, hasNote, p == "jsonb")
			}
			s := w.sql
			if n := queryInt(t, conn, "SELECT count(*) FROM "+s.status+" WHERE status = 'PENDING'"); n != initialRows {
				t.Fatalf("%d PENDING status rows after Init, want %d", n, initialRows)
			}
			if err := w.Start(ctx, conn); err != nil {
				t.Fatal(err)
			}
			cl := w.NewClient(0, rand.New(rand.NewPCG(3, 4)))
			if got := len(cl.Ops()); got != 3 {
				t.Fatalf("%d ops, want 3", got)
			}
			for i, op := range cl.Ops() {
				if op.Name != w.OpNames()[i] {
					t.Errorf("op %d is %s, want %s", i, op.Name, w.OpNames()[i])
				}
			}
			added, err := runCycles(ctx, cl, conn, 8)
			if err != nil {
				t.Fatal(err)
			}
			if added < 8*5 || added > 8*40 {
				t.Fatalf("8 cycles added %d events", added)
			}
			ch := checkOK(t, w, conn)
			if ch.UnknownCommits != 0 {
				t.Errorf("%d unknown commits", ch.UnknownCommits)
			}
			if total := queryInt(t, conn, s.countTotal); total != int64(initialRows+added) {
				t.Errorf("%d events live or archived, want %d + %d", total, initialRows, added)
			}
			if !strings.Contains(ch.Items[0].Detail, fmt.Sprintf("expected %d", initialRows+added)) {
				t.Errorf("detail %q does not give the expected total", ch.Items[0].Detail)
			}

			// The ops did their work.
			archived := queryInt(t, conn, "SELECT count(*) FROM "+s.archive)
			processed := queryInt(t, conn, "SELECT count(*) FROM "+s.status+" WHERE status <> 'PENDING'")
			if archived == 0 || processed == 0 {
				t.Errorf("after 8 cycles %d events archived, %d live ones processed", archived, processed)
			}
			// Processed payloads were modified, unprocessed ones not.
			stateIn := "json_extract(e.payload, '$.state') IN (" + inList(newStates) + ")"
			if n := queryInt(t, conn, "SELECT count(*) FROM "+s.events+" AS e WHERE NOT "+stateIn+
				" OR json_type(e.payload, '$.metrics.flags.fleeted') NOT IN ('true', 'false')"); n != 0 {
				t.Errorf("%d payloads with a bad state or fleeted flag", n)
			}
			if n := queryInt(t, conn, "SELECT count(*) FROM "+s.events+" AS e JOIN "+s.status+" AS s ON s.event_id = e.id WHERE s.status = 'PENDING' AND json_extract(e.payload, '$.state') <> 'NEW'"); n != 0 {
				t.Errorf("%d unprocessed events have a modified state", n)
			}
			if n := queryInt(t, conn, "SELECT count(*) FROM "+s.archive+" AS e WHERE json_extract(e.payload, '$.state') <> 'NEW'"); n == 0 {
				t.Error("no archived payload has a modified state")
			}
			// The flat columns match the payloads, live and archived.
			for _, tbl := range []string{s.events, s.archive} {
				q := "SELECT count(*) FROM " + tbl + " WHERE event_type IS NOT json_extract(payload, '$.eventType')" +
					" OR authority_id IS NOT json_extract(payload, '$.authorityId')" +
					" OR train_id IS NOT json_extract(payload, '$.train.trainId')" +
					" OR json_valid(payload, 6) = 0 OR length(id) <> 36"
				if n := queryInt(t, conn, q); n != 0 {
					t.Errorf("%s: %d rows whose flat columns do not match the payload", tbl, n)
				}
			}
			// TEXT payloads are stored as text, JSONB ones as binary.
			wantType := "blob"
			if p == "text" {
				wantType = "text"
			}
			if n := queryInt(t, conn, "SELECT count(*) FROM "+s.events+" WHERE typeof(payload) <> '"+wantType+"'"); n != 0 {
				t.Errorf("%d payloads are not stored as %s", n, wantType)
			}

			// Init without Fresh keeps the existing schema and rows.
			conn2 := testutil.Session(t, tg)
			w2, created, _ := initWorkload(t, tg, conn2, false, append([]string{"--variant", p}, fastArgs...)...)
			if created {
				t.Error("Init without Fresh on an existing schema says it created it")
			}
			if total := queryInt(t, conn2, s.countTotal); total != int64(initialRows+added) {
				t.Errorf("Init without Fresh changed the total to %d, want %d", total, initialRows+added)
			}
			if err := w2.Start(ctx, conn2); err != nil {
				t.Fatal(err)
			}
			checkOK(t, w2, conn2)
			// A second run on the same tables with the same seed adds new events.
			if _, err := runCycles(ctx, w2.NewClient(0, rand.New(rand.NewPCG(3, 4))), conn2, 2); err != nil {
				t.Fatalf("second run on the same data: %v", err)
			}
			checkOK(t, w2, conn2)

			// Init with Fresh starts over.
			w3, created, _ := initWorkload(t, tg, conn2, true, append([]string{"--variant", p}, fastArgs...)...)
			if !created {
				t.Error("Init with Fresh did not create the schema")
			}
			if total := queryInt(t, conn2, s.countTotal); total != initialRows {
				t.Errorf("Init with Fresh left %d events, want %d", total, initialRows)
			}
			if err := w3.Start(ctx, conn2); err != nil {
				t.Fatal(err)
			}
			checkOK(t, w3, conn2)
		})
	}
}

// TestSQLiteInitOtherVariant: a variant whose tables are missing is
// created even without Fresh, beside the other variant's tables.
func TestSQLiteInitOtherVariant(t *testing.T) {
	tg := openSQLite(t, filepath.Join(t.TempDir(), "x.db"))
	conn := testutil.Session(t, tg)
	initWorkload(t, tg, conn, true, append([]string{"--variant", "jsonb"}, fastArgs...)...)
	w, created, _ := initWorkload(t, tg, conn, false, append([]string{"--variant", "text", "--rows", "7"}, fastArgs[2:]...)...)
	if !created {
		t.Error("Init without Fresh did not create a missing variant")
	}
	if n := queryInt(t, conn, w.sql.countTotal); n != 7 {
		t.Errorf("text variant has %d events, want 7", n)
	}
	if n := queryInt(t, conn, "SELECT count(*) FROM events_jsonb"); n != initialRows {
		t.Errorf("jsonb variant has %d events, want %d", n, initialRows)
	}
}

// TestSQLiteCheckDetectsCorruption damages a database after a run and
// expects Check to name exactly the invariants that broke.
func TestSQLiteCheckDetectsCorruption(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		sql    func(s schema) []string
		failed []string
	}{
		{"delete an archived event", func(s schema) []string {
			return []string{"DELETE FROM " + s.archive + " WHERE id = (SELECT min(id) FROM " + s.archive + ")"}
		}, []string{"no event lost or invented"}},
		{"delete a live event and its status", func(s schema) []string {
			return []string{"DELETE FROM " + s.events + " WHERE id = (SELECT min(id) FROM " + s.events + ")"}
		}, []string{"no event lost or invented"}},
		{"delete one live and one archived event", func(s schema) []string {
			return []string{
				"DELETE FROM " + s.events + " WHERE id = (SELECT min(id) FROM " + s.events + ")",
				"DELETE FROM " + s.archive + " WHERE id = (SELECT min(id) FROM " + s.archive + ")",
			}
		}, []string{"no event lost or invented"}},
		{"delete a status row", func(s schema) []string {
			return []string{"DELETE FROM " + s.status + " WHERE event_id = (SELECT min(event_id) FROM " + s.status + ")"}
		}, []string{"each live event has a status"}},
		{"copy a live event into the archive", func(s schema) []string {
			return []string{"INSERT INTO " + s.archive + " (id, payload, event_type, authority_id, created_at, train_id) SELECT id, payload, event_type, authority_id, created_at, train_id FROM " + s.events + " LIMIT 1"}
		}, []string{"no event lost or invented", "each event in exactly one table"}},
		{"orphan a status row", func(s schema) []string {
			return []string{
				"PRAGMA foreign_keys = OFF",
				"INSERT INTO " + s.status + " (event_id, status) VALUES ('00000000-0000-4000-8000-000000000000', 'PENDING')",
				"PRAGMA foreign_keys = ON",
			}
		}, []string{"no orphaned status"}},
		{"invalid status", func(s schema) []string {
			return []string{
				"PRAGMA ignore_check_constraints = ON",
				"UPDATE " + s.status + " SET status = 'BOGUS' WHERE event_id = (SELECT min(event_id) FROM " + s.status + ")",
				"PRAGMA ignore_check_constraints = OFF",
			}
		}, []string{"statuses valid"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := presetOrder[i%len(presetOrder)]
			tg := openSQLite(t, filepath.Join(t.TempDir(), "x.db"))
			conn := testutil.Session(t, tg)
			w, _, _ := initWorkload(t, tg, conn, true, append([]string{"--variant", p}, fastArgs...)...)
			if err := w.Start(ctx, conn); err != nil {
				t.Fatal(err)
			}
			cl := w.NewClient(0, rand.New(rand.NewPCG(5, 6)))
			// Run until something is archived, so there is one to damage.
			for c := 0; c < 20 && queryInt(t, conn, "SELECT count(*) FROM "+w.sql.archive) == 0; c++ {
				if _, err := runCycles(ctx, cl, conn, 1); err != nil {
					t.Fatal(err)
				}
			}
			checkOK(t, w, conn)
			for _, q := range tt.sql(w.sql) {
				exec(t, conn, q)
			}
			testutil.CheckFails(t, w, conn, tt.failed)
		})
	}
}

// TestSQLiteConcurrentClients runs clients on their own sessions at once;
// SQLite serialises their transactions, and busy errors are retried.
func TestSQLiteConcurrentClients(t *testing.T) {
	ctx := context.Background()
	const clients, cycles = 4, 10
	for _, p := range presetOrder {
		t.Run(p, func(t *testing.T) {
			tg := openSQLite(t, filepath.Join(t.TempDir(), "x.db"))
			conn := testutil.Session(t, tg)
			w, _, _ := initWorkload(t, tg, conn, true, append([]string{"--variant", p}, fastArgs...)...)
			if err := w.Start(ctx, conn); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			added := make([]int, clients)
			errs := make([]error, clients)
			for i := 0; i < clients; i++ {
				cc := testutil.Session(t, tg)
				cl := w.NewClient(i, rand.New(rand.NewPCG(uint64(i), 77)))
				wg.Add(1)
				go func() {
					defer wg.Done()
					added[i], errs[i] = runCycles(ctx, cl, cc, cycles)
				}()
			}
			wg.Wait()
			sum := 0
			for i := range errs {
				if errs[i] != nil {
					t.Errorf("client %d: %v", i, errs[i])
				}
				sum += added[i]
			}
			checkOK(t, w, conn)
			if total := queryInt(t, conn, w.sql.countTotal); total != int64(initialRows+sum) {
				t.Errorf("%d events live or archived, want %d + %d", total, initialRows, sum)
			}
			if n := queryInt(t, conn, "SELECT count(*) FROM "+w.sql.archive); n == 0 {
				t.Error("nothing was archived")
			}
		})
	}
}
