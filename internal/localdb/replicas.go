package localdb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Replication is how a primary waits for its standbys at commit.
type Replication string

// The replication modes (--replication).
const (
	// Async commits on the primary alone; standbys follow when they can.
	Async Replication = "async"
	// Sync commits once one standby has flushed the commit's WAL
	// (synchronous_commit = on, synchronous_standby_names = ANY 1 (...)).
	Sync Replication = "sync"
	// SyncApply commits once one standby has applied it, so a read there
	// sees it (synchronous_commit = remote_apply).
	SyncApply Replication = "sync-apply"
)

// Replications lists the modes, for help and errors.
var Replications = []Replication{Async, Sync, SyncApply}

// ParseReplication reads --replication.
func ParseReplication(v string) (Replication, error) {
	for _, r := range Replications {
		if string(r) == v {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown --replication %q: choose async, sync or sync-apply", v)
}

// MaxReplicas bounds --replicas: the primary's default max_wal_senders
// and max_replication_slots (10) keep room for them and a base backup.
const MaxReplicas = 8

// ReplicaSet is a throwaway primary and its streaming standbys, each a
// Cluster of its own (its directory, port, password file and log). The
// standbys are base backups of the primary (pg_basebackup), each with a
// physical replication slot on it, and log in to it as its superuser
// (the run's password) over the primary's Unix socket, in a directory
// only the servers' user may enter: no other local user can take the
// primary's place for them while it is down, as one could on its TCP
// port. Its methods are safe for concurrent use; as a server of a run
// (Kill, Pause, Restart, PID) it is its current primary.
type ReplicaSet struct {
	mu      sync.Mutex
	nodes   []*Cluster // nodes[0] is the first primary
	primary int        // the current primary's index
	fenced  []bool     // a primary failed over from: never started again
	mode    Replication
}

// StartReplicated starts a primary with o, then n standbys of it
// replicating in mode, returning once every standby accepts read-only
// connections. On any error it leaves nothing behind.
func StartReplicated(ctx context.Context, o Options, n int, mode Replication) (*ReplicaSet, error) {
	if n < 1 || n > MaxReplicas {
		return nil, fmt.Errorf("%d replicas: give 1 to %d", n, MaxReplicas)
	}
	if err := CheckReplicaTools(o.BinDir); err != nil {
		return nil, err
	}
	po := o
	po.Conf = append(replicationConf(n, mode), o.Conf...)
	primary, err := Start(ctx, po)
	if err != nil {
		return nil, err
	}
	primary.replica = true
	rs := &ReplicaSet{nodes: []*Cluster{primary}, fenced: []bool{false}, mode: mode}
	ok := false
	defer func() {
		if !ok {
			_ = rs.Stop()
		}
	}()
	if primary.socketDir == "" {
		return nil, fmt.Errorf("the temporary directory %s is too long for a Unix socket, which the standbys reach the primary by: set TMPDIR to a shorter path, e.g. /tmp", primary.dir)
	}
	so := o
	so.Port = 0
	for i := 1; i <= n; i++ {
		s, err := startStandby(ctx, primary, so, StandbyName(i))
		if err != nil {
			return nil, err
		}
		rs.nodes = append(rs.nodes, s)
		rs.fenced = append(rs.fenced, false)
	}
	ok = true
	return rs, nil
}

// CheckReplicaTools reports whether the PostgreSQL installation that
// FindBinDir(binDir) finds can make standbys: it needs pg_basebackup
// beside postgres. Its error names the fix.
func CheckReplicaTools(binDir string) error {
	bin, err := FindBinDir(binDir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(bin, "pg_basebackup")); err != nil {
		return fmt.Errorf("--replicas makes each standby with pg_basebackup, which %s lacks: give --pg-bin (or --db temp-postgres@VERSION) an installation that has it, e.g. the postgresql-client package's", bin)
	}
	return nil
}

// StandbyName is the i-th standby's name (1-based): its application_name
// on the primary, its replication slot, in synchronous_standby_names.
func StandbyName(i int) string { return "standby" + strconv.Itoa(i) }

// replicationConf is the primary's settings for n standbys in mode.
func replicationConf(n int, mode Replication) []string {
	conf := []string{"wal_level=replica", "hot_standby=on"}
	if mode == Async {
		return conf
	}
	names := make([]string, n)
	for i := range names {
		names[i] = StandbyName(i + 1)
	}
	commit := "on"
	if mode == SyncApply {
		commit = "remote_apply"
	}
	return append(conf, "synchronous_standby_names=ANY 1 ("+strings.Join(names, ",")+")", "synchronous_commit="+commit)
}

// startStandby makes a base backup of primary into a new cluster's
// directory and starts it as a hot standby streaming from primary
// through the replication slot name, which the backup creates.
func startStandby(ctx context.Context, primary *Cluster, o Options, name string) (*Cluster, error) {
	o.BinDir = primary.bin
	return makeCluster(ctx, o, 0, func(c *Cluster) error {
		c.password, c.replica = primary.password, true
		return c.baseBackup(ctx, primary, name)
	})
}

// baseBackup copies primary's data directory into c's with
// pg_basebackup (the WAL streamed alongside, a slot made for c) and makes
// it a standby of primary: standby.signal, and primary_conninfo with the
// password in postgresql.auto.conf, inside the data directory only the
// servers' user may read.
func (c *Cluster) baseBackup(ctx context.Context, primary *Cluster, name string) error {
	err := tool{
		path: filepath.Join(c.bin, "pg_basebackup"),
		args: []string{"-D", c.dataDir, "-h", primary.socketDir, "-p", strconv.Itoa(primary.Port()), "-U", "postgres",
			"-X", "stream", "-C", "-S", name, "-c", "fast", "--no-sync", "-w"},
		// the password in the environment, which only its own user (and
		// root) may read
		dir: c.dir, env: append(childEnv(), "PGPASSWORD="+primary.password, "PGAPPNAME="+name), user: c.user,
		what: "pg_basebackup of the primary for " + name, detail: lastLinesOf,
	}.run(ctx)
	if err != nil {
		return err
	}
	// the primary's log came with the backup: the standby starts its own
	if err := os.Truncate(filepath.Join(c.dataDir, logFileName), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := c.follow(primary, name); err != nil {
		return err
	}
	return c.writeDataFile("standby.signal", "")
}

// follow points c, a standby, at primary: its postgresql.auto.conf (which
// txnbench alone writes: nobody runs ALTER SYSTEM on these servers) holds
// the connection and the slot. A running standby reads it on SIGHUP.
func (c *Cluster) follow(primary *Cluster, slot string) error {
	conninfo := fmt.Sprintf("host=%s port=%d user=postgres password=%s application_name=%s",
		conninfoQuote(primary.socketDir), primary.Port(), primary.password, slot)
	conf := fmt.Sprintf("# Written by txnbench: this standby's primary.\nprimary_conninfo = %s\nprimary_slot_name = %s\n",
		confQuote(conninfo), confQuote(slot))
	return c.writeDataFile("postgresql.auto.conf", conf)
}

// writeDataFile writes a file into the data directory, the server's
// user's and readable by it alone.
func (c *Cluster) writeDataFile(name, content string) error {
	return writeSecret(filepath.Join(c.dataDir, name), content, c.user)
}

// conninfoQuote quotes a libpq connection-string value when it needs it.
func conninfoQuote(v string) string {
	if v != "" && !strings.ContainsAny(v, " '\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// confQuote quotes a postgresql.conf string value.
func confQuote(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// Mode is how the primary waits for its standbys.
func (rs *ReplicaSet) Mode() Replication { return rs.mode }

// Primary is the current primary.
func (rs *ReplicaSet) Primary() *Cluster {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.nodes[rs.primary]
}

// Node is a member of the set: the current primary or a standby.
type Node struct {
	*Cluster
	Name    string // "primary" for the first primary, else StandbyName
	Primary bool   // the current primary
	Fenced  bool   // a primary failed over from, left down
}

// Nodes lists every member, the first primary first.
func (rs *ReplicaSet) Nodes() []Node {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]Node, len(rs.nodes))
	for i, c := range rs.nodes {
		name := "primary"
		if i > 0 {
			name = StandbyName(i)
		}
		out[i] = Node{Cluster: c, Name: name, Primary: i == rs.primary, Fenced: rs.fenced[i]}
	}
	return out
}

// Hosts is every member's address, host:port joined by commas, the
// current primary first: the host list of a URL that follows the
// primary (target_session_attrs=read-write).
func (rs *ReplicaSet) Hosts() string {
	var hosts []string
	for _, n := range rs.Nodes() {
		h := "127.0.0.1:" + strconv.Itoa(n.Port())
		if n.Primary {
			hosts = append([]string{h}, hosts...)
		} else {
			hosts = append(hosts, h)
		}
	}
	return strings.Join(hosts, ",")
}

// URL is the superuser's URL of whichever member is the primary: every
// member's address, target_session_attrs=read-write.
func (rs *ReplicaSet) URL() string {
	c := rs.Primary()
	return fmt.Sprintf("postgres://postgres:%s@%s/postgres?%s&%s&target_session_attrs=read-write", c.password, rs.Hosts(), clientTLS(c.tls.ca), scramOnly)
}

// Topology says what the set is, e.g. "primary and 2 standbys, sync
// (ANY 1, synchronous_commit=on)".
func (rs *ReplicaSet) Topology() string {
	n := len(rs.nodes) - 1
	s := fmt.Sprintf("primary and %d standby", n)
	if n != 1 {
		s += "s"
	}
	switch rs.mode {
	case Async:
		return s + ", async streaming replication"
	case Sync:
		return s + ", sync streaming replication (ANY 1, synchronous_commit=on)"
	}
	return s + ", sync-apply streaming replication (ANY 1, synchronous_commit=remote_apply)"
}

// Fence takes the current primary down with sig (SIGKILL: a crash;
// SIGINT: a fast shutdown, which sends the standbys all of its WAL first)
// and leaves it down: supervision does not start it again, nor does
// Restart. It returns the fenced node's index.
func (rs *ReplicaSet) Fence(sig syscall.Signal) (int, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	i := rs.primary
	rs.fenced[i] = true
	return i, rs.nodes[i].Kill(sig)
}

// Promote makes node i, a standby, the primary (pg_ctl promote's way: the
// promote signal file and SIGUSR1) and waits until it accepts read-write
// connections (its recovery over: the caller may still wait for its
// first read-write session); the standbys still running follow it (their
// primary_conninfo rewritten and reloaded; the slot they name is for the
// caller to create on it). The new primary keeps no synchronous
// standby: it commits alone until the others have caught up.
func (rs *ReplicaSet) Promote(ctx context.Context, i int) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if i <= 0 || i >= len(rs.nodes) || i == rs.primary || rs.fenced[i] {
		return fmt.Errorf("node %d is not a standby to promote", i)
	}
	c := rs.nodes[i]
	pid := c.PID()
	if pid == 0 {
		return fmt.Errorf("%s is not running", StandbyName(i))
	}
	if err := c.writeDataFile("promote", ""); err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return fmt.Errorf("promoting %s: %w", StandbyName(i), err)
	}
	// a hot standby's postmaster.pid says ready already, and the startup
	// process removes standby.signal before recovery ends (sessions are
	// read-only until then): the control file says in production only
	// once it has (see inProduction)
	deadline := time.Now().Add(readyTimeout)
	for {
		if inProduction(c.dataDir) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not promoted after %s: see its log in %s", StandbyName(i), readyTimeout, c.dataDir)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("promoting %s: %w", StandbyName(i), ctx.Err())
		case <-time.After(pollInterval):
		}
	}
	rs.primary = i
	// its own settings say it is no standby now; the primary's
	// synchronous_standby_names was never its own
	_ = c.writeDataFile("postgresql.auto.conf", "# Written by txnbench: promoted, primary of the set.\n")
	for j, s := range rs.nodes {
		if j == i || rs.fenced[j] || s.PID() == 0 {
			continue
		}
		if err := s.follow(c, StandbyName(j)); err != nil {
			return err
		}
		_ = syscall.Kill(s.PID(), syscall.SIGHUP)
	}
	return nil
}

// Kill kills the current primary (see supervised.Kill); Restart starts it
// again.
func (rs *ReplicaSet) Kill(sig syscall.Signal) error { return rs.Primary().Kill(sig) }

// Pause stops the current primary's processes (see supervised.Pause).
func (rs *ReplicaSet) Pause() (func(), error) { return rs.Primary().Pause() }

// Restart restarts the current primary.
func (rs *ReplicaSet) Restart(ctx context.Context) error { return rs.Primary().Restart(ctx) }

// PID is the current primary's postmaster.
func (rs *ReplicaSet) PID() int { return rs.Primary().PID() }

// Supervise supervises every member (see supervised.Supervise); a fenced
// one was killed on purpose and stays down.
func (rs *ReplicaSet) Supervise(onDeath func(Event)) {
	for _, n := range rs.Nodes() {
		n.Supervise(onDeath)
	}
}

// Stop stops every member and removes their directories.
func (rs *ReplicaSet) Stop() error { return rs.each((*Cluster).Stop) }

// StopNow stops every member at once (see supervised.StopNow).
func (rs *ReplicaSet) StopNow() error { return rs.each((*Cluster).StopNow) }

// each stops every member with stop, the standbys first (a primary
// stopped first makes them log reconnects until they stop).
func (rs *ReplicaSet) each(stop func(*Cluster) error) error {
	rs.mu.Lock()
	nodes := append([]*Cluster(nil), rs.nodes...)
	rs.mu.Unlock()
	var errs []error
	for i := len(nodes) - 1; i >= 0; i-- {
		if err := stop(nodes[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Repoint sends every member's server connections to host:port from now
// on (a promoted primary's socket directory or address): each is
// restarted on its port with its configuration rewritten, as a reload
// would not move the connections of its fallback database ("*").
func (f *Fleet) Repoint(ctx context.Context, host string, port int) error {
	for _, b := range f.members {
		b.mu.Lock()
		b.o.BackendHost, b.o.BackendPort = host, port
		b.mu.Unlock()
		if err := b.Restart(ctx); err != nil {
			return err
		}
	}
	return nil
}

// inProduction tells whether the server of dataDir has ended recovery:
// its control file (global/pg_control) records the state DB_IN_PRODUCTION
// (6), which the startup process writes only after it has let sessions
// write (SharedRecoveryState done), so a session that starts then is
// read-write. The state is the int32 after the system identifier and two
// version numbers, in the machine's byte order, in every version since 9.
func inProduction(dataDir string) bool {
	const stateOffset, dbInProduction = 16, 6
	b, err := os.ReadFile(filepath.Join(dataDir, "global", "pg_control"))
	if err != nil || len(b) < stateOffset+4 {
		return false
	}
	return int32(binary.NativeEndian.Uint32(b[stateOffset:])) == dbInProduction
}
