package job

import (
	"context"
	"sync"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// openDB opens the database of s for n clients, failing the test on an
// error, and closes it when the test ends.
func openDB(t testing.TB, s Spec, n int) *Database {
	t.Helper()
	db, err := Open(context.Background(), s, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// runJob runs s on db, failing the test on Run's error.
func runJob(t testing.TB, s Spec, db *Database) *result.Result {
	t.Helper()
	r, err := Run(context.Background(), s, db)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// atFirstTick makes the run of s call f once, at its first progress tick.
func atFirstTick(s *Spec, f func()) {
	var once sync.Once
	s.Runner.Observers = []runner.Observer{runner.Funcs{OnTick: func(result.Interval) { once.Do(f) }}}
}

// dbSpec is the database spec db (--db), failing the test when it is not
// one.
func dbSpec(t testing.TB, db string) target.Spec {
	t.Helper()
	sp, err := target.ParseSpec(db)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// mustVia is --via v, failing the test when it is not one.
func mustVia(t testing.TB, v string) target.Via {
	t.Helper()
	via, err := target.ParseVia(v)
	if err != nil {
		t.Fatal(err)
	}
	return via
}

// viaPgBouncer is --via pgbouncer with the settings pb.
func viaPgBouncer(pb target.PgBouncer) target.Via {
	return target.Via{Kind: target.ViaPgBouncer, PgBouncer: pb}
}

// sequentialTemp is the --db temp-postgres the package's sequential
// tests share (sequentialTempPostgres), opened by the first that asks.
var sequentialTemp struct {
	mu  sync.Mutex
	db  *Database
	err error
}

// sequentialTempPostgres opens the database of s, a --db temp-postgres
// spec without server settings of its own (--pg-conf, --pg-bin, --tls),
// on the throwaway cluster that the package's sequential tests share, as
// a study's cells share one (job.Shared): the same temp-postgres (its
// pg_stat_statements, its load role) with, for --via pgbouncer, a
// PgBouncer of the test's own in front, stopped when the test ends. Only
// for a test that does not call t.Parallel, so that no other run is on
// the cluster meanwhile, and that does not restart, kill or configure the
// server: a throwaway cluster costs about a CPU-second to start (initdb).
// The cluster runs without autovacuum: the dead rows earlier tests leave
// would otherwise be cleaned inside a later test's window, in commits of
// their own (several a run) that the commits tests would have to allow.
// TestMain stops it.
func sequentialTempPostgres(t *testing.T, s Spec) *Database {
	t.Helper()
	testutil.NeedPostgres(t)
	if s.DB.String() != target.TempPostgresSpec || len(s.PGConf) > 0 || s.PGBin != "" || s.TLS || s.Network != nil || s.PoolerNetwork != nil {
		t.Fatalf("sequentialTempPostgres shares a plain --db temp-postgres, not %s %v", s.DB, s.PGConf)
	}
	ctx := context.Background()
	sequentialTemp.mu.Lock()
	if sequentialTemp.db == nil && sequentialTemp.err == nil {
		server := s
		server.DB.Via = target.Via{}
		server.PGConf = []string{"autovacuum=off"}
		sequentialTemp.db, sequentialTemp.err = openServer(ctx, server, 32, false)
	}
	server, err := sequentialTemp.db, sequentialTemp.err
	sequentialTemp.mu.Unlock()
	if err != nil {
		t.Fatalf("the sequential tests' temp-postgres: %v", err)
	}
	db, err := server.borrow(ctx, s.DB.Via.Kind == target.ViaPgBouncer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if s.DB.Via.Kind == target.ViaPgBouncer {
		if err := startPoolers(ctx, s, db, s.Runner.Clients); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// closeSequentialTempPostgres stops the cluster of
// sequentialTempPostgres, if a test started it.
func closeSequentialTempPostgres() error {
	sequentialTemp.mu.Lock()
	defer sequentialTemp.mu.Unlock()
	if sequentialTemp.db == nil {
		return nil
	}
	return sequentialTemp.db.Close()
}
