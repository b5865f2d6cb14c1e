package telemetry

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pooler"
)

// reading makes a dbReading with the given commits, inserts, WAL position,
// sessions and reset time.
func reading(commits, inserted, wal, sessions, reset int64) dbReading {
	var r dbReading
	r[0], r[4], r[walAt], r[sessionsAt], r[resetAt] = commits, inserted, wal, sessions, reset
	return r
}

// TestDBDelta: the telemetry session's own transactions and each new
// session's login are left out of xact_commit.
func TestDBDelta(t *testing.T) {
	c := &Collector{lost: -1}
	if d := c.dbDelta(reading(1000, 50, 10, 5, 0), 7); d != nil {
		t.Fatalf("the baseline gave %v", d)
	}
	// 100 commits published: 3 the telemetry's, 10 logins, 87 the clients'.
	d := c.dbDelta(reading(1100, 80, 30, 15, 0), 10)
	if d["xact_commit"] != 87 || d["tup_inserted"] != 30 || d["wal_bytes"] != 20 {
		t.Errorf("delta %v", d)
	}
	if len(c.tel.Notes) != 0 || len(c.gap) != 0 {
		t.Errorf("notes %q, gap %q", c.tel.Notes, c.gap)
	}
}

// TestDBDeltaReset: statistics reset between two readings (counters went
// down, or stats_reset moved) give what was counted since the reset,
// never a negative change, flagged in a note and the sample's gap.
func TestDBDeltaReset(t *testing.T) {
	for name, now := range map[string]dbReading{
		"went down":   reading(40, 5, 900, 2, 0),
		"reset moved": reading(5000, 600, 900, 60, 99),
	} {
		t.Run(name, func(t *testing.T) {
			c := &Collector{lost: -1}
			c.dbDelta(reading(1000, 500, 800, 50, 0), 3)
			d := c.dbDelta(now, 9)
			for k, v := range d {
				if v < 0 {
					t.Errorf("%s %d", k, v)
				}
			}
			if d["tup_inserted"] != now[4] || d["xact_commit"] != now[0]-now[sessionsAt] || d["wal_bytes"] != 100 {
				t.Errorf("delta %v", d)
			}
			if len(c.tel.Notes) != 1 || !strings.Contains(c.tel.Notes[0], "reset") || c.takeGap("") != "database statistics reset" {
				t.Errorf("notes %q", c.tel.Notes)
			}
		})
	}
}

// TestPoolDeltaRestart: a pooler's counters that went down mean a new
// incarnation: its totals are the interval's change, flagged, and the
// run's pooler.Watcher gets the restart as an event (the job mends the
// pooler's counters from it, not from the flag's text).
func TestPoolDeltaRestart(t *testing.T) {
	w, err := pooler.Watch(pooler.Poolers{AdminURL: "postgres://127.0.0.1:1/pgbouncer"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := &Collector{lost: -1, o: Options{Poolers: w}}
	pc := &poolConsole{name: "the pooler", lost: -1, last: map[string]int64{"total_xact_count": 500, "total_query_count": 900}}
	d := c.poolDelta(pc, map[string]int64{"total_xact_count": 520, "total_query_count": 950})
	if d["total_xact_count"] != 20 || d["total_query_count"] != 50 || len(c.tel.Notes) != 0 {
		t.Fatalf("delta %v, notes %q", d, c.tel.Notes)
	}
	d = c.poolDelta(pc, map[string]int64{"total_xact_count": 30, "total_query_count": 60})
	if d["total_xact_count"] != 30 || d["total_query_count"] != 60 {
		t.Errorf("delta after a restart %v", d)
	}
	if len(c.tel.Notes) != 1 || !strings.Contains(c.tel.Notes[0], "restarted") || c.takeGap("") != poolerRestarted {
		t.Errorf("notes %q", c.tel.Notes)
	}
	if rs := w.Restarts(); len(rs) != 1 || rs[0].Pooler != "the pooler" || rs[0].By < rs[0].After {
		t.Errorf("the watcher's restarts %+v: want the one restart of the pooler", rs)
	}
}
