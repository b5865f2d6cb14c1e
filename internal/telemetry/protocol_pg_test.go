package telemetry

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestSamplesSendParameters: the wait samples reach the server with the
// database name as a parameter ($1 in the text the server shows), not
// spliced into the statement by the client: the simple protocol's splicing
// parses the statement in the measured client at every sample (issue 31).
func TestSamplesSendParameters(t *testing.T) {
	testutil.NeedPostgres(t)
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
