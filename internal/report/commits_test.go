package report

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestCommitsText: the server's commits with the clients' transactions
// they cover, and, beyond them, the notifications the server delivered
// in transactions of its own (a workflow run's commits were 14.8% above
// its transactions, and nothing said why).
func TestCommitsText(t *testing.T) {
	for _, tt := range []struct {
		c    result.Commits
		want string
	}{
		{result.Commits{Server: 14405, Window: 14375, After: 30}, "14,405 = 14,375 in the window + 30 completed after it"},
		{result.Commits{Server: 14410, Window: 14375}, "14,410 for the clients' 14,375 transactions (14,375 in the window; +0.2%)"},
		{result.Commits{Server: 14020, Window: 12199, After: 13, Notified: 2035},
			"14,020 for the clients' 12,212 transactions (12,199 in the window + 13 completed after it; +14.8%; the server also delivered the listener's 2,035 notifications, in up to as many transactions of its own)"},
		{result.Commits{Server: 12000, Window: 12199, Notified: 2035}, "12,000 for the clients' 12,199 transactions (12,199 in the window; -1.6%)"},
		{result.Commits{Server: 39, Window: 30, After: 1, Autovacuum: 6}, "39 for the clients' 31 transactions (30 in the window + 1 completed after it; +25.8%; autovacuum and autoanalyze processed tables 6 times, in transactions of their own)"},
		{result.Commits{Server: 5}, "5"},
		// MariaDB counts COMMIT statements: 0 for 8,594 autocommitted
		// queries read as -100% before
		{result.Commits{Server: 0, Window: 8594, Statements: true}, "0 COMMIT statements beside the clients' 8,594 transactions (8,594 in the window; the server counts no autocommitted statement)"},
		// the workload's own commits beside its ops are a part of the sum
		{result.Commits{Server: 589, Window: 549, Workload: 40}, "589 = 549 in the window + 40 the workload committed beside its ops"},
		{result.Commits{Server: 599, Window: 554, Workload: 32, Notified: 12},
			"599 for 586 transactions (554 in the window + 32 the workload committed beside its ops; +2.2%; the server also delivered the listener's 12 notifications, in up to as many transactions of its own)"},
		{result.Commits{Server: 580, Window: 554, After: 1, Workload: 32, Notified: 12}, "580 for 587 transactions (554 in the window + 1 completed after it + 32 the workload committed beside its ops; -1.2%)"},
		{result.Commits{Server: 7, Workload: 7}, "7"},
	} {
		if got := CommitsText(tt.c); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}
