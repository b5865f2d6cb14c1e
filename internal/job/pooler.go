package job

import (
	"context"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/target/pg"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// poolerStats reads the pooler's SHOW STATS totals, summed over its
// databases (the admin console's own row left out); nil without a pooler
// or when the console cannot be reached.
func (d *Database) poolerStats(ctx context.Context) map[string]int64 {
	if d.adminURL == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	totals, err := telemetry.PoolerStats(ctx, d.adminURL)
	if err != nil {
		return nil
	}
	return totals
}

// poolerResult is what the pooler did during the run: its counters' change
// since before, and its pools at the end.
func (d *Database) poolerResult(ctx context.Context, before map[string]int64) *result.Pooler {
	if d.adminURL == "" {
		return nil
	}
	p := &result.Pooler{Name: d.poolerName, Detail: d.poolerDetail}
	after := d.poolerStats(ctx)
	if after == nil {
		p.Note = "its admin console (SHOW STATS) could not be read"
		return p
	}
	p.Stats = map[string]int64{}
	for k, v := range after {
		p.Stats[k] = v - before[k]
	}
	if rows, err := pg.AdminRows(ctx, d.adminURL, "SHOW POOLS"); err == nil {
		for _, row := range rows {
			if row["database"] != "pgbouncer" {
				p.Pools = append(p.Pools, row)
			}
		}
	}
	return p
}

// closePoolerServers makes the throwaway PgBouncer close its server
// connections and waits (at most a few seconds) until SHOW SERVERS lists
// none: a pooled backend that never goes idle for long does not publish
// its statistics until it exits. RECONNECT closes each server connection
// once it is released; the clients are gone, so all are. Nothing to do
// without a throwaway PgBouncer (a pooler given by URL is left alone).
func (d *Database) closePoolerServers(ctx context.Context) {
	if d.bouncer == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := pg.AdminRows(ctx, d.adminURL, "RECONNECT"); err != nil {
		return
	}
	for ctx.Err() == nil {
		rows, err := pg.AdminRows(ctx, d.adminURL, "SHOW SERVERS")
		if err != nil || len(rows) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mendPooler corrects the pooler's run counters when it restarted during
// the run (its SHOW STATS totals start again from zero, so after - before
// is wrong): the telemetry's, which add up its incarnations, replace them
// when it has them; otherwise a note says they are not its totals.
func mendPooler(p *result.Pooler, tel *result.Telemetry) {
	if p == nil || p.Stats == nil {
		return
	}
	restarted := false
	if tel != nil {
		for _, s := range tel.Series {
			restarted = restarted || strings.Contains(s.Gap, telemetry.PoolerRestarted)
		}
	}
	if restarted && tel.Pooler != nil {
		p.Stats = tel.Pooler
		p.Note = "it restarted during the run: its counters are the sum over its incarnations in the window, less what an old one counted after its last sample"
		return
	}
	for _, v := range p.Stats {
		restarted = restarted || v < 0
	}
	if restarted {
		p.Note = "it restarted during the run: its counters started again from zero, so these changes are not its totals"
	}
}

// nameServerSessions makes the throwaway cluster name its sessions as
// txnbench's clients name theirs (application_name), so PgBouncer need not
// send a SET on each server connection it links a client to: that would
// be a transaction of its own in the server's xact_commit.
func nameServerSessions(ctx context.Context, t target.Target) {
	c, err := t.Connect(ctx)
	if err != nil {
		return
	}
	defer c.Close(ctx)
	c.Exec(ctx, "ALTER ROLE CURRENT_USER SET application_name = 'txnbench'")
}
