package pg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/target/pg"
)

// TestAdminRowsGivesUpOnASilentConsole: a console whose process is
// stopped (a listener that never accepts: the kernel completes the TCP
// handshake, nothing answers the startup packet) fails after AdminWait,
// as a timeout naming the statement. Without a deadline of its own,
// AdminRows waited for as long as the process was stopped.
func TestAdminRowsGivesUpOnASilentConsole(t *testing.T) {
	ln, err := localdb.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	url := fmt.Sprintf("postgres://u:p@%s/pgbouncer?sslmode=disable", ln.Addr())
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := pg.AdminRows(context.Background(), url, "SHOW POOLS")
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(pg.AdminWait + 30*time.Second):
		t.Fatalf("AdminRows still waiting %s after it began", time.Since(start))
	}
	if took := time.Since(start); err == nil || target.Classify(err) != errclass.Timeout || !strings.Contains(err.Error(), "no answer to SHOW POOLS within 3s") || took < pg.AdminWait {
		t.Errorf("after %s: %v (class %s); want a timeout naming SHOW POOLS after %s", took, err, target.Classify(err), pg.AdminWait)
	}
}
