package job

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
)

// Replication is temp-postgres's standbys (--replicas, --replication):
// none when Replicas is 0.
type Replication struct {
	Replicas int
	Mode     localdb.Replication
	ReadFrom string // --read-from (readfrom.go): "" or ReadPrimary, ReadReplicas, ReadAny
}

// CheckReplication refuses standbys where txnbench cannot start them
// and what needs them without them; its errors name the fix.
func (s Spec) CheckReplication() error {
	r := s.Replication
	if r.Replicas < 0 || r.Replicas > localdb.MaxReplicas {
		return fmt.Errorf("--replicas %d: give 1 to %d standbys, or 0 for one server", r.Replicas, localdb.MaxReplicas)
	}
	if err := s.checkReadFrom(); err != nil {
		return err
	}
	failovers := 0
	for _, f := range s.Faults {
		if f.Kind.Needs() == fault.NeedsReplicas {
			failovers++
		}
	}
	if r.Replicas == 0 {
		switch {
		case r.Mode != "" && r.Mode != localdb.Async:
			return fmt.Errorf("--replication %s with no standby to wait for: add --replicas 1 (or more) with --db temp-postgres", r.Mode)
		case failovers > 0:
			return errors.New("--fault failover and switchover promote a standby: add --replicas 1 (or more) with --db temp-postgres")
		}
		return nil
	}
	if !s.DB.Throwaway() || !engine.Of(s.DB).Caps().Replicas {
		what := target.MaskURL(s.DB.String())
		if s.DB.Embedded() {
			what = "SQLite, an embedded database,"
		}
		return fmt.Errorf("--replicas starts standbys of txnbench's throwaway PostgreSQL: use --db temp-postgres (standbys of %s are not supported)", what)
	}
	if err := localdb.CheckReplicaTools(s.PGBin); err != nil {
		return err
	}
	if failovers > r.Replicas {
		return fmt.Errorf("%d failovers and switchovers with --replicas %d: each promotes one standby, and a fenced primary is not started again; give --replicas %d or fewer faults", failovers, r.Replicas, failovers)
	}
	if s.Network != nil || s.PoolerNetwork != nil {
		return errors.New("--network and --pooler-network with --replicas: the proxy fronts one server, and would not follow a failover (not supported yet)")
	}
	for _, f := range s.Faults {
		if f.Kind.Needs() == fault.NeedsNetwork {
			return fmt.Errorf("--fault %s with --replicas: the fault proxy fronts one server, and would not follow a failover (not supported yet)", f)
		}
	}
	return nil
}

// topology is what the result says of the servers: "" for one.
func (d *Database) topology() string {
	if d.replicas == nil {
		return ""
	}
	return d.replicas.Topology()
}

// failover is the failover and switchover faults: the primary fenced
// (killed, or with clean a fast shutdown, which sends the standbys all of
// its WAL first), the standby that received the most WAL promoted, and
// txnbench's PgBouncers pointed at it. It returns the fault's note.
func (d *Database) failover(ctx context.Context, clean bool) string {
	rs := d.replicas
	sig := syscall.SIGKILL
	if clean {
		sig = syscall.SIGINT
	}
	if _, err := rs.Fence(sig); err != nil {
		return "fencing the primary failed: " + errclass.FirstLine(err)
	}
	best, bestLSN, lsns := -1, int64(-1), []string{}
	for i, n := range rs.Nodes() {
		if n.Primary || n.Fenced || n.PID() == 0 {
			continue
		}
		lsn, err := receivedLSN(ctx, d.member(n.Cluster))
		if err != nil {
			lsns = append(lsns, n.Name+" did not answer ("+errclass.FirstLine(err)+")")
			continue
		}
		lsns = append(lsns, fmt.Sprintf("%s at %s", n.Name, formatLSN(lsn)))
		if lsn > bestLSN {
			best, bestLSN = i, lsn
		}
	}
	if best < 0 {
		return "no standby to promote: " + strings.Join(lsns, "; ")
	}
	if err := rs.Promote(ctx, best); err != nil {
		return "promoting " + localdb.StandbyName(best) + " failed: " + errclass.FirstLine(err)
	}
	p := rs.Primary()
	if err := awaitReadWrite(ctx, d.member(p)); err != nil {
		return localdb.StandbyName(best) + " promoted, but takes no writes: " + errclass.FirstLine(err)
	}
	note := fmt.Sprintf("%s promoted (the most WAL received: %s); the old primary fenced", localdb.StandbyName(best), strings.Join(lsns, ", "))
	if err := followerSlots(ctx, d.member(p), rs); err != nil {
		note += "; the other standbys' slots on it could not be made: " + errclass.FirstLine(err)
	}
	if d.poolers != nil {
		host := p.SocketDir() // see startPoolers
		if err := d.poolers.Repoint(ctx, host, p.Port()); err != nil {
			return note + "; pointing PgBouncer at it failed: " + errclass.FirstLine(err)
		}
		note += "; PgBouncer restarted pointing at it"
	}
	return note
}

// awaitReadWrite waits until the server at sp is out of recovery.
func awaitReadWrite(ctx context.Context, sp target.Spec) error {
	return onServer(ctx, sp, func(c target.Conn) error {
		for {
			var recovering bool
			if err := target.QueryRow(ctx, c, "SELECT pg_is_in_recovery()", nil, &recovering); err != nil || !recovering {
				return err
			}
			if err := runner.Sleep(ctx, 10*time.Millisecond); err != nil {
				return err
			}
		}
	})
}

// receivedLSN is how far the standby at sp has received (or replayed)
// the primary's WAL, as a byte position.
func receivedLSN(ctx context.Context, sp target.Spec) (int64, error) {
	var lsn int64
	err := onServer(ctx, sp, func(c target.Conn) error {
		return target.QueryRow(ctx, c, `SELECT pg_wal_lsn_diff(coalesce(greatest(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), '0/0'), '0/0')::bigint`, nil, &lsn)
	})
	return lsn, err
}

// followerSlots makes on the new primary at sp the replication slots
// the other standbys of rs now name (see localdb.ReplicaSet.Promote).
func followerSlots(ctx context.Context, sp target.Spec, rs *localdb.ReplicaSet) error {
	return onServer(ctx, sp, func(c target.Conn) error {
		for _, n := range rs.Nodes() {
			if n.Primary || n.Fenced {
				continue
			}
			var made bool
			if err := target.QueryRow(ctx, c, `SELECT count(pg_create_physical_replication_slot($1)) = 1 FROM (SELECT 1) AS one
				WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = $1)`, []any{n.Name}, &made); err != nil {
				return err
			}
		}
		return nil
	})
}

// member is the member m of db's replica set, as its superuser: the
// engine's Admin at m's own URL.
func (d *Database) member(m *localdb.Cluster) target.Spec { return d.srv.Admin.WithURL(m.URL()) }

// onServer runs f on a session of its own on the server at sp.
func onServer(ctx context.Context, sp target.Spec, f func(target.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	t, err := target.Open(ctx, sp.WithParam("application_name", "txnbench-failover"))
	if err != nil {
		return err
	}
	defer t.Close()
	c, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	return f(c)
}

// formatLSN writes a WAL position as PostgreSQL does (0/3000060).
func formatLSN(lsn int64) string { return fmt.Sprintf("%X/%X", uint64(lsn)>>32, uint32(lsn)) }
