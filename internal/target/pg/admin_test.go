package pg_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/target/pg"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestAdminRowsGivesUpOnASilentConsole: a console whose process is
// stopped (a listener that never accepts: the kernel completes the TCP
// handshake, nothing answers the startup packet) fails after AdminWait,
// as a timeout naming the statement. Without a deadline of its own, a
// reading waited for as long as the process was stopped.
func TestAdminRowsGivesUpOnASilentConsole(t *testing.T) {
	ln, err := localdb.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err := pg.OpenAdmin(fmt.Sprintf("postgres://u:p@%s/pgbouncer?sslmode=disable", ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := a.Rows(context.Background(), "SHOW POOLS")
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(pg.AdminWait + 30*time.Second):
		t.Fatalf("Rows still waiting %s after it began", time.Since(start))
	}
	if took := time.Since(start); err == nil || target.Classify(err) != errclass.Timeout || !strings.Contains(err.Error(), "no answer to SHOW POOLS within 3s") || took < pg.AdminWait {
		t.Errorf("after %s: %v (class %s); want a timeout naming SHOW POOLS after %s", took, err, target.Classify(err), pg.AdminWait)
	}
}

// TestOpenAdminMalformed: a console's URL is read as it is opened, and
// one that cannot be read is an error then, its password masked.
func TestOpenAdminMalformed(t *testing.T) {
	_, err := pg.OpenAdmin("postgres://u:secret@127.0.0.1:1/pgbouncer?connect_timeout=soon")
	if !errors.Is(err, target.ErrMalformedURL) || strings.Contains(err.Error(), "secret") {
		t.Errorf("OpenAdmin: %v; want a malformed URL, its password masked", err)
	}
}

// TestAdminKeepsOneSession: a console's readings go through one session
// (one login to PgBouncer per run, not one per reading: each cost a SCRAM
// exchange on PgBouncer's one thread and the client's CPU), and after
// the pooler restarts the next reading still answers, on a new session
// (the new process's) that the readings after it keep. SHOW CLIENTS names the session by its
// port: a reading that logged in anew (as each did before) has another.
func TestAdminKeepsOneSession(t *testing.T) {
	ctx := context.Background()
	b := testutil.PgBouncer(t, testutil.Postgres(t), 0)
	a, err := pg.OpenAdmin(b.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	// session is the console's client port as a reading sees it: the one
	// admin client listed.
	session := func() string {
		t.Helper()
		rows, err := a.Rows(ctx, "SHOW CLIENTS")
		if err != nil {
			t.Fatal(err)
		}
		var ports []string
		for _, r := range rows {
			if r["database"] == "pgbouncer" {
				ports = append(ports, r["port"])
			}
		}
		if len(ports) != 1 {
			t.Fatalf("admin clients on ports %v: want the one session", ports)
		}
		return ports[0]
	}
	first := session()
	for i := range 4 {
		if got := session(); got != first {
			t.Fatalf("reading %d on port %s, the first on %s: want one session", i+2, got, first)
		}
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	again := session() // the kept session is lost: replaced within the reading
	if got := session(); got != again {
		t.Errorf("after the restart, readings on ports %s then %s: want the new session kept", again, got)
	}
	a.Close()
	if _, err := a.Rows(ctx, "SHOW CLIENTS"); err == nil {
		t.Errorf("a reading after Close answered")
	}
}
