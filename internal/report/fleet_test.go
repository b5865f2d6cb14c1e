package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestFleetLines: under the pooler line of a fleet, HAProxy's line and one
// line per member, HAProxy's view of it beside its own counters.
func TestFleetLines(t *testing.T) {
	r := &result.Result{Pooler: &result.Pooler{
		Name: "PgBouncer 1.18.0 x2 behind HAProxy 2.6.12, leastconn", Detail: "transaction pooling, 20 server connections each",
		Stats: map[string]int64{"total_xact_count": 1500},
		Members: []result.PoolerMember{
			{Name: "pooler1", Stats: map[string]int64{"total_xact_count": 500, "total_query_count": 1000}, Note: "it restarted during the run"},
			{Name: "pooler2", Stats: map[string]int64{"total_xact_count": 1000, "total_query_count": 2000}},
		},
		Proxy: &result.Proxy{Name: "HAProxy 2.6.12", Detail: "leastconn, check inter 2s fall 3 rise 2", Servers: []result.ProxyServer{
			{Name: "pooler1", Status: "UP", Sessions: 6, ConnectErrors: 2, Redispatched: 2, FailedChecks: 1, Downs: 0},
			{Name: "pooler2", Status: "UP", Sessions: 3},
		}},
	}}
	var b bytes.Buffer
	Outcomes(&b, r)
	page := runPage(r)
	html := map[string]string{}
	for _, f := range page.Header {
		html[f.Name] = f.Value
	}
	if !strings.HasPrefix(html["proxy"], "HAProxy 2.6.12 (leastconn") || !strings.HasPrefix(html["pooler2"], "UP, 3 sessions") {
		t.Errorf("HTML page header %+v: want the proxy and each member", page.Header)
	}
	want := []string{
		"pooler     PgBouncer 1.18.0 x2 behind HAProxy 2.6.12, leastconn (transaction pooling, 20 server connections each): 1,500 transactions",
		"           HAProxy 2.6.12 (leastconn, check inter 2s fall 3 rise 2)",
		"           pooler1  UP, 6 sessions, 2 connect errors (2 redispatched), 1 failed checks, 0 downs; 500 transactions, 1,000 queries; it restarted during the run",
		"           pooler2  UP, 3 sessions, 0 connect errors (0 redispatched), 0 failed checks, 0 downs; 1,000 transactions, 2,000 queries",
	}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("output lacks\n%s\nin\n%s", w, b.String())
		}
	}
}
