package faults

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestFreedPortGivesNothingAway: while a fault holds a throwaway service
// down, a fake server run as another local user (nobody) takes its port
// and asks the clients that come for a cleartext password, an MD5 hash, or
// lets them in unasked. For each kind of downtime (the server killed with
// clients on it directly and behind PgBouncer, PgBouncer killed) the
// impostor receives no password message and no query: the clients refuse
// it; and the run still ends with its verdict, the refusals counted in a
// class of their own. On the code before, the clients and PgBouncer sent
// it the passwords. The three runs (each its own server, pooler and
// impostor on its own port) run side by side.
func TestFreedPortGivesNothingAway(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	server, pooler := clitest.ServerReady, clitest.PoolerReady
	for _, c := range []struct {
		name  string
		args  []string
		port  string // the line naming the port the fault frees
		fault string
	}{
		{"kill-server", nil, server, "2s:kill-server:5s"},
		{"kill-server-via-pgbouncer", []string{"--via", "pgbouncer"}, server, "2s:kill-server:5s"},
		{"kill-pooler", []string{"--via", "pgbouncer"}, pooler, "2s:kill-pooler:5s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), c.name+".json")
			args := append([]string{"run", "train-events", "--db", "temp-postgres", "--clients", "3", "--duration", "9s",
				"--progress", "1s", "--fault", c.fault, "--json", out}, clitest.Quick...)
			// The fault leaves the service down 5 s; the impostor lets the
			// port go at most 3 s after it got it, before the restart.
			code, stdout, stderr, port, rep := clitest.RunAgainstImpostor(t, c.port, false, append(args, c.args...)...)
			if !rep.Bound || rep.Startups == 0 {
				t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d startups): nothing tested\n%s", port, rep.Bound, rep.Startups, stderr)
			}
			for _, m := range rep.Sent {
				t.Errorf("a client answered the impostor's request %d with message %q (%d bytes)", m.Auth, m.Type, len(m.Body))
			}
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("exit %d, want a verdict of OK:\n%s\n%s", code, stdout, stderr)
			}
			r := clitest.RefusalsAsAuth(t, out, fmt.Sprintf("%d startups", rep.Startups))
			for _, f := range r.Faults {
				if strings.Contains(f.Note, "failed") {
					t.Errorf("fault: %+v", f)
				}
			}
		})
	}
}
