package faults

import (
	"fmt"
	"os"
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
			code, stdout, stderr, port, rep := clitest.RunAgainstImpostor(t, c.port, clitest.PGImpostor, append(args, c.args...)...)
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

// TestFreedMariaDBPortGivesNothingAway is TestFreedPortGivesNothingAway
// for temp-mariadb (the run of issue 37, oltp-read-write, with checks that
// its clients are the load user and read no file): while kill-server holds
// it down, a fake MySQL 8 server
// run as nobody takes its port, offers caching_sha2_password and hands out
// its own RSA key, with a certificate of its own or no TLS. The clients
// (the load user) and txnbench's own sessions (root) refuse it at the TLS
// handshake: it receives no login (no user name) and no password; the
// refusals are class auth, the run's output names the port hint, and the
// run ends with its invariants OK. On the code before, the driver handed
// it the root password encrypted with its key (issue 37).
func TestFreedMariaDBPortGivesNothingAway(t *testing.T) {
	t.Parallel()
	testutil.NeedMariaDB(t)
	dir := testutil.Artifacts(t)
	out, check := filepath.Join(dir, "mariadb-kill-server.json"), filepath.Join(dir, "load-user.sql")
	// The clients' sessions (the check's too) are the load user's, who
	// may not read the server's files.
	if err := os.WriteFile(check, []byte(`-- name: the clients are the load user
SELECT CURRENT_USER() = 'txnbench_load@127.0.0.1';
-- name: the load user reads no file
SELECT load_file('/etc/hostname') IS NULL;
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "script", "-b", "oltp-read-write", "--db", "temp-mariadb", "--clients", "2", "--duration", "9s",
		"--progress", "1s", "--fault", "2s:kill-server:5s", "--check", check, "--json", out}
	code, stdout, stderr, port, rep := clitest.RunAgainstImpostor(t, clitest.MariaDBReady, clitest.MySQLImpostor, args...)
	if !rep.Bound || rep.Conns == 0 {
		t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d connections): nothing tested\n%s", port, rep.Bound, rep.Conns, stderr)
	}
	if rep.Startups > 0 || rep.Handshakes > 0 || len(rep.Sent) > 0 || len(rep.Leaked) > 0 {
		t.Errorf("the impostor got %d logins, %d TLS handshakes, %d messages, %d passwords, want none", rep.Startups, rep.Handshakes, len(rep.Sent), len(rep.Leaked))
	}
	if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
		t.Fatalf("exit %d, want a verdict of OK:\n%s\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"the clients are the load user", "the load user reads no file"} {
		if !strings.Contains(stdout, "ok   "+name) {
			t.Errorf("no %q ok:\n%s", name, stdout)
		}
	}
	r := clitest.RefusalsAsAuth(t, out, fmt.Sprintf("%d connections, %d TLS requests", rep.Conns, rep.SSLRequests))
	if r.TLS == nil || r.TLS.Verify != "tls-ca against the run's CA" {
		t.Errorf("tls = %+v, want the clients' TLS, verified against the run's CA", r.TLS)
	}
	if clitest.OutageErrors(r)["auth"] > 0 && !strings.Contains(stdout+stderr, "another local process may hold the port") {
		t.Errorf("auth errors in the outage, and the output does not name the port hint:\n%s\n%s", stdout, stderr)
	}
}
