package telemetry

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestAutovacuumCounted: autovacuum and autoanalyze commit transactions
// of their own, which pg_stat_database's xact_commit counts beside the
// clients' (a capacity step counted 39 commits for its clients' 31
// transactions, and nothing said why). The database counters carry how
// many times they processed the database's tables over the span, and the
// commits' text names them. The cluster's autovacuum wakes every second
// and the table's thresholds are zero, so an insert is analysed within
// the test's poll.
func TestAutovacuumCounted(t *testing.T) {
	url := testutil.Postgres(t, "autovacuum_naptime=1").URL()
	testutil.Exec(t, url, "CREATE TABLE t (id int) WITH (autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0)")
	ctx := context.Background()
	_, c, done := testutil.Conn(t, url)
	defer done()
	var db string
	var pgNum int
	if err := target.QueryRow(ctx, c, "SELECT current_database(), current_setting('server_version_num')::int", nil, &db, &pgNum); err != nil {
		t.Fatal(err)
	}
	var before dbReading
	if err := readDB(ctx, c, pgNum, db, &before); err != nil {
		t.Fatal(err)
	}
	testutil.Exec(t, url, "INSERT INTO t SELECT generate_series(1, 100)")
	var after dbReading
	var d map[string]int64
	if !testutil.Poll(time.Minute, 200*time.Millisecond, func() bool {
		if err := readDB(ctx, c, pgNum, db, &after); err != nil {
			t.Fatal(err)
		}
		d = after.delta(&before)
		return d["autovacuum"] > 0
	}) {
		t.Fatalf("no autovacuum or autoanalyze counted in a minute: %v", d)
	}
	r := &result.Result{Telemetry: &result.Telemetry{Database: map[string]int64{"xact_commit": d["xact_commit"], "autovacuum": d["autovacuum"]}},
		Ops: []result.Op{{Name: "add", Kind: result.KindTxn}}}
	r.Ops[0].Count = 1
	cs, ok := r.ServerCommits()
	want := fmt.Sprintf("autovacuum and autoanalyze processed tables %d times", d["autovacuum"])
	if !ok || cs.Autovacuum != d["autovacuum"] || (cs.Server > 1 && !strings.Contains(report.CommitsText(cs), want)) {
		t.Errorf("commits %+v: %q, want it to name %q", cs, report.CommitsText(cs), want)
	}
}
