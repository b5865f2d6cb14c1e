package job

import (
	"context"
	"github.com/txnbench/txnbench/internal/engine/postgres"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestLoadRoleIsNotSuperuser: through txnbench's own PgBouncer on
// temp-postgres the clients are a role that is not a superuser, so a
// login through it cannot run programs on the server (COPY ... TO
// PROGRAM); the run's database is that role's, so the workload creates its
// tables, loads and runs, and a study's isolation may reset the statistics.
func TestLoadRoleIsNotSuperuser(t *testing.T) {
	testutil.NeedPgBouncer(t)
	s := spec(t, target.TempPostgresSpec, runner.Config{Clients: 2, Iterations: 20})
	s.DB.Via = viaPgBouncer(target.PgBouncer{Size: 2})
	db := sequentialTempPostgres(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := withConn(ctx, db, func(c target.Conn) error {
		var user string
		var super bool
		if err := target.QueryRow(ctx, c, "SELECT current_user::text, rolsuper FROM pg_roles WHERE rolname = current_user", nil, &user, &super); err != nil {
			return err
		}
		if user != postgres.LoadRole || super {
			t.Errorf("the clients log in as %s (superuser %v), want %s, not a superuser", user, super, postgres.LoadRole)
		}
		_, err := c.Exec(ctx, "COPY (SELECT 1) TO PROGRAM 'id'")
		if target.Classify(err) != errclass.Permission {
			t.Errorf("COPY TO PROGRAM through PgBouncer: %v, want a permission error", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := Isolate(ctx, db, 0); err != nil {
		t.Errorf("isolating the next run: %v", err)
	}
	r := runJob(t, s, db)
	if r.Invariants == nil || !r.Invariants.OK {
		t.Fatalf("invariants: %+v", r.Invariants)
	}
}
