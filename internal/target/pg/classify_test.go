package pg

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/errclass"
)

// TestPoolerServerLostIsConnectionLost: PgBouncer's FATAL "server
// connection closed" (SQLSTATE 08P01), which a client linked to a server
// that was killed got in CI (TestFreedPortGivesNothingAway's
// kill-server-via-pgbouncer), is a lost session, not an unclassified
// error, and a commit that got it has an unknown outcome; a real protocol
// violation stays "other". Failed before: "other".
func TestPoolerServerLostIsConnectionLost(t *testing.T) {
	var d driver
	for _, msg := range poolerServerLost {
		err := &pgconn.PgError{Severity: "FATAL", Code: "08P01", Message: msg}
		if c, ok := d.Classify(err); !ok || c != errclass.ConnectionLost {
			t.Errorf("%q: class %s, want %s", msg, c, errclass.ConnectionLost)
		}
		if unknown, ok := d.CommitOutcomeUnknown(err); !ok || !unknown {
			t.Errorf("%q: commit outcome known, want unknown (the server went away with it)", msg)
		}
	}
	if c, _ := d.Classify(&pgconn.PgError{Severity: "ERROR", Code: "08P01", Message: "invalid message format"}); c != errclass.Other {
		t.Errorf("a protocol violation: class %s, want %s", c, errclass.Other)
	}
}
