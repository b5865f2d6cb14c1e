package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// slowResult is fixedResult with slow ops of every kind: explained by
// waits, with a note, pooled, and the other kept ones.
func slowResult() *result.Result {
	r := fixedResult()
	at := time.Date(2025, 12, 5, 10, 0, 30, 0, time.UTC)
	r.SlowOps = []result.SlowOp{
		{Op: "add", Client: 3, Start: at, LatencyMS: 63012, BackendPID: 4242, Samples: 630, Waits: []result.SlowWait{
			{Event: "LWLock:BufferContent", Samples: 580, MS: 58000}, {Event: "CPU", Samples: 41, MS: 4100},
			{Event: "Client:ClientRead (idle in transaction)", Samples: 9, MS: 900}}},
		{Op: "add", Client: 1, Start: at, LatencyMS: 950, BackendPID: 4240, Samples: 9, Waits: []result.SlowWait{{Event: "CPU", Samples: 9, MS: 900}}},
		{Op: "process", Client: 2, Start: at, LatencyMS: 70, BackendPID: 4241, Note: "no wait sample fell inside it: one is taken every 100ms"},
		{Op: result.CycleOp, Client: 3, Start: at, LatencyMS: 63400, Backend: "unknown backend (pooled)"},
	}
	return r
}

func TestSummarySlowOpsGolden(t *testing.T) {
	plain.Golden(t, "summary_slowops.golden", summaryOf(slowResult()))
}

// TestSlowOpsSQLite: without sessions the notes give only times.
func TestSlowOpsSQLite(t *testing.T) {
	r := fixedResult()
	r.SlowOps = []result.SlowOp{{Op: "add", Client: 2, LatencyMS: 1500}}
	var b bytes.Buffer
	SlowOps(&b, r)
	if got, want := b.String(), "\nslowest    add: 1.5 s (client 2)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b.Reset()
	SlowOps(&b, fixedResult())
	if b.Len() != 0 {
		t.Errorf("notes without slow ops: %q", b.String())
	}
}

// TestSlowOpsHTML: the HTML report has a table of all slow ops.
func TestSlowOpsHTML(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, slowResult()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	plain.Contains(t, "the page", page, "slowest ops", "63,012.00", "waiting on LWLock:BufferContent 58.0 s, CPU 4.1 s", "unknown backend (pooled)", "no wait sample fell inside it")
}

// TestSlowOpsHTMLSQLite: a SQLite run's slow ops have no sessions, so
// their table has neither the backend and session columns nor the note on
// pg_stat_activity's samples, which were never taken; PostgreSQL's keep
// them. Before, SQLite's table said "Sampled from pg_stat_activity" above
// two empty columns.
func TestSlowOpsHTMLSQLite(t *testing.T) {
	r := fixedResult()
	r.SlowOps = []result.SlowOp{{Op: "add", Client: 2, LatencyMS: 1500}, {Op: "add", Client: 1, LatencyMS: 900}}
	tables := slowOpsTable(r)
	if len(tables) != 1 {
		t.Fatalf("tables: %d", len(tables))
	}
	tb := tables[0]
	if strings.Join(tb.Columns, "|") != "op|latency (ms)|started|client" || tb.Note != "" || len(tb.Rows[0]) != len(tb.Columns) {
		t.Errorf("SQLite's table: columns %q, note %q, row %q", tb.Columns, tb.Note, tb.Rows[0])
	}
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, "pg_stat_activity") || !strings.Contains(page, "slowest ops") {
		t.Errorf("SQLite's page names a sampler that did not run, or lacks the table")
	}
	pg := slowOpsTable(slowResult())[0]
	if len(pg.Columns) != 6 || !strings.HasPrefix(pg.Note, "Sampled from pg_stat_activity") {
		t.Errorf("PostgreSQL's table: columns %q, note %q", pg.Columns, pg.Note)
	}
}
