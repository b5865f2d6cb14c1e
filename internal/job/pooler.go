package job

import (
	"context"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
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
	if rows, err := target.AdminRows(ctx, d.adminURL, "SHOW POOLS"); err == nil {
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
	if _, err := target.AdminRows(ctx, d.adminURL, "RECONNECT"); err != nil {
		return
	}
	for ctx.Err() == nil {
		rows, err := target.AdminRows(ctx, d.adminURL, "SHOW SERVERS")
		if err != nil || len(rows) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
