package pg_test

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	// Readings whose time is already over fail and leave the session be
	// (one that took its turn anyway found it "lost" for want of time, and
	// dropped it: the next reading logged in anew).
	over, cancel := context.WithCancel(ctx)
	cancel()
	for range 20 {
		if _, err := a.Rows(over, "SHOW CLIENTS"); !errors.Is(err, context.Canceled) {
			t.Fatalf("a reading cancelled before it began: %v", err)
		}
	}
	if got := session(); got != first {
		t.Fatalf("after readings cancelled before they began, port %s, the first %s: want the session kept", got, first)
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

// TestAdminCloseEndsTheReadingUnderWay: Close ends a reading under way
// on a console that does not answer (here a listener that takes the
// login and never replies, as a stopped pooler's kernel does) and one
// waiting for its turn, at once, rather than waiting out their
// AdminWait: the run closes its consoles as it returns, and a reading
// nobody waits for any more (the telemetry cut short after an
// interrupt) held it for up to AdminWait per console.
func TestAdminCloseEndsTheReadingUnderWay(t *testing.T) {
	ln := testutil.Listen(t)
	a, err := pg.OpenAdmin(fmt.Sprintf("postgres://u:p@%s/pgbouncer?sslmode=disable", ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 2)
	read := func() {
		_, err := a.Rows(context.Background(), "SHOW STATS")
		done <- err
	}
	go read()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The startup packet's length: the reading is under way, its turn held.
	if _, err := io.ReadFull(c, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	go read() // waits for its turn
	a.Close()
	if took := time.Since(start); took >= pg.AdminWait {
		t.Errorf("Close returned %s after the reading began: it waited out the reading's %s", took, pg.AdminWait)
	}
	for range 2 {
		if err := <-done; err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("a reading Close ended: %v; want it closed", err)
		}
	}
	// Its connection is gone: the listener's end reads its close, not a
	// deadline.
	c.SetReadDeadline(time.Now().Add(pg.AdminWait))
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Errorf("the ended reading's connection: %v; want it closed", err)
	}
}
