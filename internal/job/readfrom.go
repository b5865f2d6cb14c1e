package job

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/connect"
	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Where --read-from sends the workload's read-only ops.
const (
	ReadPrimary  = "primary"  // with the others, to the primary (the default)
	ReadReplicas = "replicas" // to the standbys, round-robin over the clients
	ReadAny      = "any"      // to every member, round-robin over the clients (the primary alone without standbys)
)

// ParseReadFrom checks a --read-from value.
func ParseReadFrom(v string) (string, error) {
	switch v {
	case ReadPrimary, ReadReplicas, ReadAny:
		return v, nil
	}
	return "", fmt.Errorf("--read-from %q: choose primary, replicas or any", v)
}

// routesReads reports whether the run sends its reads elsewhere than
// the primary.
func (r Replication) routesReads() bool { return r.ReadFrom != "" && r.ReadFrom != ReadPrimary }

// checkReadFrom refuses --read-from replicas or any where there is no
// standby to read from or nothing to read.
func (s Spec) checkReadFrom() error {
	r := s.Replication
	if !r.routesReads() {
		return nil
	}
	switch {
	case r.Replicas == 0 && r.ReadFrom == ReadAny && s.DB.Throwaway() && engine.Of(s.DB).Caps().Replicas:
		// every member is the primary alone: a study's cell of
		// --vary replicas=0,1,2 that reads from the primary
	case r.Replicas == 0:
		return fmt.Errorf("--read-from %s reads from standbys: add --replicas 1 (or more) with --db temp-postgres", r.ReadFrom)
	}
	if s.DB.Via.Kind == target.ViaPgBouncer {
		// txnbench's PgBouncers front the primary alone: the reads would
		// go around them, and the figures would mix pooled writes with
		// unpooled reads as if both were pooled
		return fmt.Errorf("--read-from %s with --via pgbouncer: txnbench's PgBouncers front the primary only, so the reads would bypass them; drop --via pgbouncer to read from the standbys directly, or keep --read-from primary to pool everything (docs/replication.md)", r.ReadFrom)
	}
	if len(workload.ReadOnly(s.Workload)) == 0 {
		return fmt.Errorf("--read-from %s: %s declares no read-only transaction to send to a standby (see docs/replication.md: script's read-only builtins, e.g. -b ycsb-read@95 -b ycsb-update@5 for YCSB-B)", r.ReadFrom, s.Name)
	}
	return nil
}

// readTargets are the Targets of --read-from, as the clients' role: one
// per member it reads from, each a URL of every such member starting at
// its own (client k begins at the k-th, and goes on to the next when that
// one is away), with target_session_attrs=prefer-standby for replicas
// (the primary only once no standby is left, after failovers) and any for
// any.
func (d *Database) readTargets(ctx context.Context, readFrom string) ([]target.Target, error) {
	var hosts []string
	for _, n := range d.replicas.Nodes() {
		if n.Fenced || n.Primary && readFrom == ReadReplicas {
			continue
		}
		hosts = append(hosts, "127.0.0.1:"+strconv.Itoa(n.Port()))
	}
	attrs := "prefer-standby"
	if readFrom == ReadAny {
		attrs = "any"
	}
	var ts []target.Target
	for i := range hosts {
		u, err := url.Parse(d.conn.URL)
		if err != nil {
			closeAll(ts)
			return nil, fmt.Errorf("%w %s", target.ErrMalformedURL, target.MaskURL(d.conn.URL))
		}
		u.Host = strings.Join(append(append([]string{}, hosts[i:]...), hosts[:i]...), ",")
		q := u.Query()
		q.Set("target_session_attrs", attrs)
		u.RawQuery = q.Encode()
		t, err := openSpec(ctx, d.conn.WithURL(u.String()))
		if err != nil {
			closeAll(ts)
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func closeAll(ts []target.Target) {
	for _, t := range ts {
		t.Close()
	}
}

// openReads opens the connector of the read-only ops with --read-from
// replicas or any: a connector of rn.s.Conn's strategy on each of
// readTargets, the clients dealt round-robin over them. Its stop closes
// them, as openConnectors' closes the clients'.
func (rn *running) openReads() error {
	if !rn.s.Replication.routesReads() || rn.db.replicas == nil {
		return nil
	}
	if err := rn.db.awaitStandbys(rn.ctx); err != nil {
		return err
	}
	ts, err := rn.db.readTargets(rn.ctx, rn.s.Replication.ReadFrom)
	if err != nil {
		return err
	}
	var cs []connect.Connector
	for _, t := range ts {
		c, err := connect.New(rn.ctx, t, rn.s.Conn)
		if err != nil {
			for _, c := range cs {
				c.Close()
			}
			closeAll(ts)
			return err
		}
		cs = append(cs, c)
	}
	rn.reads = connect.RoundRobin(cs)
	rn.standbyBefore = rn.db.standbyXacts(rn.ctx, false, nil)
	rn.stops.push(func() {
		within(rn.wctx, rn.reads.Close)
		closeAll(ts)
	})
	return nil
}

// awaitStandbys waits until every standby has replayed the primary's
// WAL as it is now, as PostgreSQL's own tests wait for a standby to catch
// up: the load role and the loaded data are there before the first read
// (a delayed standby, recovery_min_apply_delay, has them that much later).
func (d *Database) awaitStandbys(ctx context.Context) error {
	var at int64
	if err := onServer(ctx, d.member(d.replicas.Primary()), func(c target.Conn) error {
		return target.QueryRow(ctx, c, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint", nil, &at)
	}); err != nil {
		return err
	}
	for _, n := range d.replicas.Nodes() {
		if n.Primary || n.Fenced {
			continue
		}
		err := onServer(ctx, d.member(n.Cluster), func(c target.Conn) error {
			for {
				var done bool
				if err := target.QueryRow(ctx, c, "SELECT coalesce(pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0') >= $1, false)", []any{at}, &done); err != nil || done {
					return err
				}
				if err := runner.Sleep(ctx, 20*time.Millisecond); err != nil {
					return err
				}
			}
		})
		if err != nil {
			return fmt.Errorf("--read-from: %s did not replay the loaded data at %s: %w", n.Name, formatLSN(at), err)
		}
	}
	return nil
}

// standbyXacts is each standby's count of committed transactions in the
// run database (pg_stat_database.xact_commit), by name: what it served,
// with the few of txnbench's own readings. A standby that does not answer
// is left out. With settle it reads until two readings 100 ms apart
// agree: the clients' sessions publish their counts as they exit.
// It reads the standbys, or with of the members of is keyed by, one
// promoted since among them (its sessions of the run went on serving
// reads).
func (d *Database) standbyXacts(ctx context.Context, settle bool, of map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for _, n := range d.replicas.Nodes() {
		_, was := of[n.Name]
		if of == nil && n.Primary || of != nil && !was || n.Fenced || n.PID() == 0 {
			continue
		}
		x := int64(-1)
		err := onServer(ctx, d.member(n.Cluster), func(c target.Conn) error {
			for range 20 {
				prev := x
				if err := target.QueryRow(ctx, c, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()", nil, &x); err != nil {
					return err
				}
				if !settle || x == prev {
					return nil
				}
				if err := runner.Sleep(ctx, 100*time.Millisecond); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			out[n.Name] = x
		}
	}
	return out
}

// readRouting is what --read-from did: the workload's stale reads and
// what each standby served during the run, by its own counters.
func (rn *running) readRouting() *result.ReadRouting {
	if rn.reads == nil {
		return nil
	}
	rr := &result.ReadRouting{From: rn.s.Replication.ReadFrom}
	if sc, ok := rn.s.Workload.(workload.StaleCounter); ok {
		if st, own, reads, ok := sc.StaleReads(); ok {
			rr.Stale, rr.Own, rr.Reads = &st, own, reads
		}
	}
	after := rn.db.standbyXacts(rn.wctx, true, rn.standbyBefore)
	for _, n := range rn.db.replicas.Nodes() {
		a, ok := after[n.Name]
		b, was := rn.standbyBefore[n.Name]
		if ok && was {
			rr.Standbys = append(rr.Standbys, result.StandbyReads{Name: n.Name, Commits: a - b, Promoted: n.Primary})
		}
	}
	return rr
}
