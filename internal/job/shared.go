package job

import (
	"context"
	"github.com/txnbench/txnbench/internal/engine"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/faultproxy"
	"github.com/txnbench/txnbench/internal/target"
)

// Shared opens the databases of a set of specifications (a study's cells)
// once each: specifications on the same database share it, a throwaway
// cluster sized for the most connections and a pooler for the most
// clients of any of them. Specifications on the same throwaway cluster
// (--db temp-postgres, --pg-bin, --pg-conf) share it whatever their
// pooler: a cell via PgBouncer runs against the same cluster as a direct
// one, behind a PgBouncer of its own that runs only while its cells do.
type Shared struct {
	specs                []Spec
	maxConns, maxClients map[string]int // by dbKey, and by serverKey for clusters
	dbs                  map[string]*Database
	servers              map[string]*Database // the clusters, by serverKey
}

// NewShared readies the databases of specs; nothing opens until Open.
func NewShared(specs []Spec) *Shared {
	s := &Shared{specs: specs, maxConns: map[string]int{}, maxClients: map[string]int{}, dbs: map[string]*Database{}, servers: map[string]*Database{}}
	for _, sp := range specs {
		k := dbKey(sp)
		s.maxConns[k] = max(s.maxConns[k], sp.ServerConnections())
		s.maxClients[k] = max(s.maxClients[k], sp.Runner.Clients)
		if sk, ok := serverKey(sp); ok {
			s.maxConns[sk] = max(s.maxConns[sk], sp.ServerConnections())
		}
	}
	return s
}

// Open returns the database of the i-th specification, opening it the
// first time one of the specifications sharing it asks.
func (s *Shared) Open(ctx context.Context, i int) (*Database, error) {
	sp := s.specs[i]
	k := dbKey(sp)
	sk, cluster := serverKey(sp)
	if cluster {
		s.release(sk, k)
	}
	if db, ok := s.dbs[k]; ok {
		return db, nil
	}
	if !cluster {
		sized := sp
		sized.Runner.Clients = s.maxClients[k]
		db, err := Open(ctx, sized, s.maxConns[k])
		if err != nil {
			return nil, err
		}
		s.dbs[k] = db
		return db, nil
	}
	server, ok := s.servers[sk]
	if !ok {
		var err error
		if server, err = openServer(ctx, sp, s.maxConns[sk], false); err != nil {
			return nil, err
		}
		s.servers[sk] = server
	}
	if sp.DB.Via.Kind != target.ViaPgBouncer && sp.Network == nil && sp.DB.Isolation == target.DefaultIsolation {
		s.dbs[k] = server
		return server, nil
	}
	db, err := server.borrow(ctx, sp.DB.Via.Kind == target.ViaPgBouncer || sp.Network != nil)
	if err != nil {
		return nil, err
	}
	if sp.DB.Via.Kind == target.ViaPgBouncer {
		if err := startPoolers(ctx, sp, db, s.maxClients[k]); err != nil {
			db.Close()
			return nil, err
		}
	}
	// --network between this cell's clients and the cluster or its
	// PgBouncer: a proxy of the cell's own, closed with it.
	if err := shapeOrClose(ctx, sp, db); err != nil {
		return nil, err
	}
	if err := isolateOrClose(sp, db); err != nil {
		return nil, err
	}
	s.dbs[k] = db
	return db, nil
}

// release stops the PgBouncers of the cluster sk other than the database
// keyed k's: a pooler waiting for its cells would hold server connections
// through another cell's run; the next of its cells starts it again
// (each run restarts its pooler anyway, see Isolate).
func (s *Shared) release(sk, k string) {
	server := s.servers[sk]
	if server == nil {
		return
	}
	for k2, db := range s.dbs {
		if k2 != k && db.lender == server {
			db.Close()
			delete(s.dbs, k2)
		}
	}
}

// Close closes every database opened, the clusters last.
func (s *Shared) Close() {
	for _, db := range s.dbs {
		if db.lender != nil {
			db.Close()
		}
	}
	for _, db := range s.servers {
		db.Close()
	}
	for _, db := range s.dbs {
		if db.lender == nil && !s.isServer(db) {
			db.Close()
		}
	}
}

// isServer reports whether db is one of the clusters.
func (s *Shared) isServer(db *Database) bool {
	for _, sv := range s.servers {
		if sv == db {
			return true
		}
	}
	return false
}

// dbKey identifies a database that specifications can share.
func dbKey(s Spec) string {
	p := s.DB.Via.PgBouncer
	return strings.Join(append([]string{s.DB.String(), replicationKey(s.Replication), string(s.DB.Isolation), s.PGBin, strconv.FormatBool(s.TLS), shapeKey(s.Network), shapeKey(s.PoolerNetwork), s.DB.Via.String(), p.Mode, strconv.Itoa(p.Size), p.Bin, strconv.Itoa(max(p.Poolers, 1))}, append(s.PGConf, s.MariaDBConf...)...), "\x00")
}

// serverKey identifies the throwaway cluster of a specification that runs
// directly or via a throwaway PgBouncer on one; false for any other (a
// server or a pooler given by URL, SQLite).
func serverKey(s Spec) (string, bool) {
	if !s.DB.Throwaway() || !engine.Of(s.DB).Caps().PgBouncer || s.DB.Via.Kind == target.ViaURL {
		return "", false
	}
	return strings.Join(append([]string{"cluster", s.DB.String(), replicationKey(s.Replication), s.PGBin, strconv.FormatBool(s.TLS)}, s.PGConf...), "\x00"), true
}

// replicationKey is the standbys in a key: a study's cells of
// --vary replicas=0,1,2 each get servers of their own (--read-from
// reads from the same servers, and is not in it).
func replicationKey(r Replication) string {
	return strconv.Itoa(r.Replicas) + " " + string(r.Mode)
}

// shapeKey is a --network shape in a key: "" for none.
func shapeKey(sh *faultproxy.Shape) string {
	if sh == nil {
		return ""
	}
	return sh.String()
}
