package report

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
)

// CommitsText is the server's commits and how the clients' transactions (and
// the workload's beside its ops) add up to them: "14,405 = 14,375 in the
// window + 30 completed after it", or, when they do not, "14,410 for the
// clients' 14,375 transactions (14,375 in the window; +0.2%)" ("14,083
// for 14,060 transactions (12,199 in the window + 1,861 the workload
// committed beside its ops; ...)" with the workload's), with what the
// server's delivering of notifications ("+14.8%; the server also
// delivered the listener's 2,035 notifications, in up to as many
// transactions of its own") and autovacuum may add ("+25.8%; autovacuum
// and autoanalyze processed tables 6 times, in transactions of their
// own"); the commits alone without client counts.
func CommitsText(c result.Commits) string {
	parts := []string{texttable.Count(c.Window) + " in the window"}
	if c.After > 0 {
		parts = append(parts, texttable.Count(c.After)+" completed after it")
	}
	if c.Before > 0 {
		parts = append(parts, texttable.Count(c.Before)+" begun in the warm-up")
	}
	whose := "the clients' "
	if c.Workload > 0 {
		parts = append(parts, texttable.Count(c.Workload)+" the workload committed beside its ops")
		whose = ""
	}
	if c.Probes > 0 {
		parts = append(parts, texttable.Count(c.Probes)+" round-trip probes")
		whose = ""
	}
	sum := strings.Join(parts, " + ")
	// with --read-from the standbys committed the reads: counted beside
	server, shown := c.Server, texttable.Count(c.Server)
	if c.Standbys > 0 {
		server += c.Standbys
		shown += " + " + texttable.Count(c.Standbys) + " on the standbys"
	}
	switch known := c.Clients() + c.Workload + c.Probes; {
	case c.Clients() == 0:
		return shown
	case c.Statements:
		return fmt.Sprintf("%s COMMIT statements beside %s%s transactions (%s; the server counts no autocommitted statement)", shown, whose, texttable.Count(known), sum)
	case known == server:
		return shown + " = " + sum
	default:
		why := ""
		if c.Notified > 0 && server > known {
			why += fmt.Sprintf("; the server also delivered the listener's %s notifications, in up to as many transactions of its own", texttable.Count(c.Notified))
		}
		if c.Autovacuum > 0 && server > known {
			why += fmt.Sprintf("; autovacuum and autoanalyze processed tables %s times, in transactions of their own", texttable.Count(c.Autovacuum))
		}
		return fmt.Sprintf("%s for %s%s transactions (%s; %+.1f%%%s)", shown, whose, texttable.Count(known), sum, 100*float64(server-known)/float64(known), why)
	}
}
