package job

import (
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// committed is the transactions the clients committed: the successful
// ops (each train-events op is one transaction).
func committed(r *result.Result) int64 {
	var n int64
	for _, o := range r.Ops {
		if o.Kind == "" {
			n += o.Count
		}
	}
	return n
}

// commitsMatch checks that the server counted the clients' commits
// within 1%.
func commitsMatch(t *testing.T, r *result.Result) {
	t.Helper()
	tel := r.Telemetry
	if tel == nil || tel.Database == nil {
		t.Fatalf("no database telemetry: %+v", tel)
	}
	client, server := committed(r), tel.Database["xact_commit"]
	diff := server - client
	if diff < 0 {
		diff = -diff
	}
	t.Logf("client %d, server %d, notes %q", client, server, tel.Notes)
	if client < 100 || diff*100 > client {
		t.Errorf("the server counted %d commits for %d client transactions (notes %q)", server, client, tel.Notes)
	}
	if ins := tel.Database["tup_inserted"]; ins <= 0 {
		t.Errorf("tup_inserted %d", ins)
	}
}

// TestTelemetryCommitsMatch: the server's commits over the window are the
// clients' committed transactions within 1%, on each connection path.
func TestTelemetryCommitsMatch(t *testing.T) {
	testutil.NeedPgBouncer(t)
	for _, tc := range []struct {
		name   string
		conn   string
		pooler Pooler
	}{
		{name: "session"},
		{name: "per-txn", conn: connect.PerTxn},
		{name: "pgbouncer", pooler: Pooler{Via: ViaPgBouncer, Mode: "transaction", Size: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t, TempPostgres, runner.Config{Clients: 4, Duration: 1500 * time.Millisecond, Progress: 500 * time.Millisecond})
			s.Conn.Strategy = tc.conn
			s.Pooler = tc.pooler
			commitsMatch(t, run(t, s))
		})
	}
}
