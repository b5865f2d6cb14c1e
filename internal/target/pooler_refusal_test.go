package target_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestPoolerRefusalIsNoUnknownCommit: a real PgBouncer whose server was
// killed and restarted turns clients away for server_login_retry (15 s)
// after its failed login, the server up again or not. A commit it turned
// away never reached a server: it is a connect error, and its outcome is
// known (it did not happen), so it does not widen the range the
// invariant check accepts. Failed before: the refusal is FATAL, which was
// counted as a commit of unknown outcome and classed "other".
func TestPoolerRefusalIsNoUnknownCommit(t *testing.T) {
	cl := testutil.Postgres(t)
	ctx := context.Background()
	testutil.Exec(t, cl.URL(), "CREATE TABLE t (v int)")
	b := testutil.PgBouncer(t, cl, 2)
	tg, err := target.OpenURL(ctx, b.URL("postgres"))
	must(t, err)
	t.Cleanup(func() { tg.Close() })
	commit := func(c target.Conn, ctx context.Context) error {
		if err := c.Begin(ctx); err != nil {
			return err
		}
		_, err := c.ExecCommit(ctx, "INSERT INTO t VALUES (1)")
		return err
	}
	// Two sessions logged in through PgBouncer while the server was up.
	waiter, err := tg.Connect(ctx)
	must(t, err)
	defer waiter.Close(ctx)
	refused, err := tg.Connect(ctx)
	must(t, err)
	defer refused.Close(ctx)
	must(t, commit(refused, ctx))

	must(t, cl.Kill(syscall.SIGKILL))
	// A commit waits for a server connection; PgBouncer's login to the
	// dead server fails (its server_login_retry clock starts).
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	werr := commit(waiter, short)
	cancel()
	if werr == nil {
		t.Fatal("a commit through PgBouncer succeeded with its server killed")
	}
	must(t, cl.Restart(ctx))

	err = commit(refused, ctx)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "server_login_retry") {
		t.Fatalf("want PgBouncer's server_login_retry refusal (the situation this test plants), got %v", err)
	}
	if target.CommitOutcomeUnknown(err) {
		t.Errorf("%v: counted as a commit of unknown outcome; it never reached the server", err)
	}
	if c := target.Classify(err); c != errclass.ConnectRefused {
		t.Errorf("%v: class %s, want %s", err, c, errclass.ConnectRefused)
	}
}
