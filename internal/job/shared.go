package job

import (
	"context"
	"strconv"
	"strings"
)

// Shared opens the databases of a set of specifications (a study's cells)
// once each: specifications on the same database share it, a throwaway
// cluster sized for the most connections and a pooler for the most
// clients of any of them.
type Shared struct {
	specs                []Spec
	maxConns, maxClients map[string]int
	dbs                  map[string]*Database
}

// NewShared readies the databases of specs; nothing opens until Open.
func NewShared(specs []Spec) *Shared {
	s := &Shared{specs: specs, maxConns: map[string]int{}, maxClients: map[string]int{}, dbs: map[string]*Database{}}
	for _, sp := range specs {
		k := dbKey(sp)
		s.maxConns[k] = max(s.maxConns[k], sp.ServerConnections())
		s.maxClients[k] = max(s.maxClients[k], sp.Runner.Clients)
	}
	return s
}

// Open returns the database of the i-th specification, opening it the
// first time one of the specifications sharing it asks.
func (s *Shared) Open(ctx context.Context, i int) (*Database, error) {
	k := dbKey(s.specs[i])
	if db, ok := s.dbs[k]; ok {
		return db, nil
	}
	sized := s.specs[i]
	sized.Runner.Clients = s.maxClients[k]
	db, err := Open(ctx, sized, s.maxConns[k])
	if err != nil {
		return nil, err
	}
	s.dbs[k] = db
	return db, nil
}

// Close closes every database opened.
func (s *Shared) Close() {
	for _, db := range s.dbs {
		db.Close()
	}
}

// dbKey identifies a database that specifications can share.
func dbKey(s Spec) string {
	p := s.Pooler
	return strings.Join(append([]string{s.DB, s.PGBin, p.Via, p.Mode, strconv.Itoa(p.Size), p.Bin, strconv.Itoa(max(p.Poolers, 1))}, append(s.PGConf, s.MariaDBConf...)...), "\x00")
}
