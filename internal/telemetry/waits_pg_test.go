package telemetry

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestWaitsQuerySessions: on a real server, a session idle in a
// transaction counts as a Client:ClientRead sample (what a published
// baseline found its top wait to be), a session idle between
// transactions does not, nor does the sampling session itself; the
// history lists both idle sessions by state.
func TestWaitsQuerySessions(t *testing.T) {
	url := testutil.Postgres(t).URL()
	ctx := context.Background()
	tg, sampler, done := testutil.Conn(t, url)
	defer done()
	inTxn, idle := testutil.Session(t, tg), testutil.Session(t, tg)
	if err := inTxn.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	defer inTxn.Rollback(ctx)
	if _, err := inTxn.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := idle.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	var db string
	if err := target.QueryRow(ctx, sampler, "SELECT current_database()", nil, &db); err != nil {
		t.Fatal(err)
	}
	var agg, pids string
	seen := testutil.Poll(10*time.Second, 20*time.Millisecond, func() bool {
		if err := target.QueryRow(ctx, sampler, waitsQuery, []any{db}, &agg, &pids); err != nil {
			t.Fatal(err)
		}
		return strings.Contains(pids, "(idle in transaction)=") && strings.Contains(pids, "(idle)=")
	})
	if !seen {
		t.Fatalf("the sessions never showed idle and idle in transaction: %q", pids)
	}
	if agg != "Client:ClientRead=1" {
		t.Errorf("counted %q, want the session idle in its transaction only, as Client:ClientRead=1", agg)
	}
	if strings.Count(pids, "=") != 2 {
		t.Errorf("history %q: want the two idle sessions, not the sampler's", pids)
	}
	w := newWaitCounter()
	w.add(agg)
	if s := w.summary(100); len(s.Events) != 1 || s.Events[0].Name != "Client:ClientRead" || s.Classes[0].Name != "Client" || s.ActiveSamples != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestSamplesSendParameters: the wait samples reach the server with the
// database name as a parameter ($1 in the text the server shows), not
// spliced into the statement by the client: the simple protocol's splicing
// parses the statement in the measured client at every sample (issue 31).
func TestSamplesSendParameters(t *testing.T) {
	url := testutil.Postgres(t).URL()
	ctx := context.Background()
	c := Start(ctx, Options{Server: target.URLSpec(target.ServerURL, url), Sample: 10 * time.Millisecond})
	c.Measure()
	defer c.Finish(ctx)
	_, watcher, done := testutil.Conn(t, url)
	defer done()
	var q string
	seen := testutil.Poll(10*time.Second, 20*time.Millisecond, func() bool {
		err := target.QueryRow(ctx, watcher, "SELECT coalesce(string_agg(query, ''), '') FROM pg_stat_activity WHERE application_name = '"+appName+"'", nil, &q)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(q, "FROM pg_stat_activity")
	})
	if !seen {
		t.Fatalf("the telemetry session never showed its wait sample; last %q", q)
	}
	if !strings.Contains(q, "datname = $1") {
		t.Errorf("the wait sample reached the server as %q: want the database name as parameter $1", q)
	}
}
