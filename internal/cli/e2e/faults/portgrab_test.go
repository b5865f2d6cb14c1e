package faults

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
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
	server := `PostgreSQL \S+ ready on 127\.0\.0\.1:(\d+)`
	pooler := `ready on 127\.0\.0\.1:(\d+) in front of it`
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
			r, err := result.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Faults {
				if strings.Contains(f.Note, "failed") {
					t.Errorf("fault: %+v", f)
				}
			}
			errs := clitest.OutageErrors(r)
			t.Logf("impostor: %d startups; errors in the outage by class: %v", rep.Startups, errs)
			// A refusal is class auth, never unclassified. Which connections
			// meet the impostor is the machine's: on a busy one txnbench's own
			// readiness probes may be its startups, the clients finding the
			// port free (connect_refused) instead.
			if errs["other"] > 0 {
				t.Errorf("errors in the outage by class: %v: want the refusals counted as auth, none unclassified", errs)
			}
			if errs["auth"] == 0 {
				t.Logf("no client met the impostor in this outage (%d startups, %v): the refusal's class was not exercised", rep.Startups, errs)
			}
		})
	}
}
