package job

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestViaUnixSocketURLReadsTheConsole: a pooler given by a Unix-socket
// URL (--via postgres:///db?host=DIR&port=N) has its admin console read
// at the same socket: the run's pooler figures are its counters. The
// console's URL dropped the host and port parameters, so it went to the
// default socket (no PgBouncer there) and the report said the console
// could not be read.
func TestViaUnixSocketURLReadsTheConsole(t *testing.T) {
	t.Parallel()
	dbURL := testutil.SharedPostgres(t)
	b := userPgBouncer(t, dbURL)
	if _, err := os.Stat(filepath.Join(b.Dir(), ".s.PGSQL."+strconv.Itoa(b.Port()))); err != nil {
		t.Skipf("PgBouncer listens on no Unix socket (its directory's path is too long for one): %v", err)
	}
	u := mustURL(t, b.URL(strings.TrimPrefix(mustURL(t, dbURL).Path, "/")))
	u.Host = ""
	q := u.Query()
	q.Set("host", b.Dir())
	q.Set("port", strconv.Itoa(b.Port()))
	u.RawQuery = q.Encode()
	s := spec(t, dbURL, runner.Config{Clients: 2, Iterations: 20})
	s.DB.Via = mustVia(t, u.String())
	r := run(t, s)
	checkShape(t, r, 20)
	p := r.Pooler
	if p == nil || p.Stats["total_xact_count"] == 0 || strings.Contains(p.Note, "could not be read") {
		t.Errorf("pooler %+v: want its console's counters, read at the socket in %s", p, b.Dir())
	}
}
