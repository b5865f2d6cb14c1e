package trainevents

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

func (w *Workload) count(ctx context.Context, c target.Conn, q string) (int64, error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}

// Check verifies that every event the run started with or added in a
// committed transaction is in exactly one of the live and archive tables,
// that every live event has exactly one status row and no status row is
// orphaned, and that every status is valid.
func (w *Workload) Check(ctx context.Context, c target.Conn) (result.Check, error) {
	s := w.sql
	var ch result.Check
	baseline, committed, unknownEvents, unknownCommits, open := w.books()
	ch.UnknownCommits = unknownCommits
	counts := []struct{ name, q string }{
		{"total", s.countTotal},
		{"both", fmt.Sprintf("SELECT count(*) FROM %s AS e JOIN %s AS a ON a.id = e.id", s.events, s.archive)},
		{"no_status", fmt.Sprintf("SELECT count(*) FROM %s AS e LEFT JOIN %s AS s ON s.event_id = e.id WHERE s.event_id IS NULL", s.events, s.status)},
		{"orphans", fmt.Sprintf("SELECT count(*) FROM %s AS s LEFT JOIN %s AS e ON e.id = s.event_id WHERE e.id IS NULL", s.status, s.events)},
		{"bad_status", fmt.Sprintf("SELECT count(*) FROM %s WHERE status NOT IN (%s)", s.status, inList(statuses))},
	}
	got := map[string]int64{}
	for _, q := range counts {
		n, err := w.count(ctx, c, q.q)
		if err != nil {
			return ch, fmt.Errorf("checking invariants (%s): %w", q.name, err)
		}
		got[q.name] = n
	}
	lo := baseline + committed
	hi := lo + unknownEvents
	total := got["total"]
	ch.Lost = &result.Lost{Count: max(0, lo-total), Unit: "events"} // acknowledged, not there
	switch {
	case open:
		ch.Add("no event lost", total >= lo,
			"%d events live or archived; expected at least %d (%d before + %d added); not checked: whether any was invented, as a killed run's events after its last heartbeat are unknown", total, lo, baseline, committed)
	case lo == hi:
		ch.Add("no event lost or invented", total == lo,
			"%d events live or archived; expected %d (%d before the run + %d added)", total, lo, baseline, committed)
	default:
		ch.Add("no event lost or invented", total >= lo && total <= hi,
			"%d events live or archived; expected %d to %d (%d before + %d added + up to %d from %d commits of unknown outcome)",
			total, lo, hi, baseline, committed, hi-lo, ch.UnknownCommits)
	}
	ch.Add("each event in exactly one table", got["both"] == 0, "%d events are both live and archived", got["both"])
	ch.Add("each live event has a status", got["no_status"] == 0, "%d live events have no status row", got["no_status"])
	ch.Add("no orphaned status", got["orphans"] == 0, "%d status rows have no event", got["orphans"])
	ch.Add("statuses valid", got["bad_status"] == 0, "%d status rows have an unknown status", got["bad_status"])
	return ch, nil
}
