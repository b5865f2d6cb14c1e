package poolers

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

// TestTLSFlagRefused: bad --tls values, and --tls where txnbench makes no
// certificates, exit 2 before any work, naming the flag.
func TestTLSFlagRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--db", "temp-postgres", "--tls=maybe"},
		{"--db", "temp-postgres", "--tls=ON"},
		{"--db", "temp-postgres", "--tls="},
		{"--tls"}, // the temporary SQLite
		{"--db", "sqlite:x.db", "--tls"},
		{"--db", "temp-mariadb", "--tls"},
		{"--db", "postgres://u:p@127.0.0.1:1/db", "--tls"},
	} {
		code, _, stderr := clitest.RunBinary(t, append([]string{"run", "train-events"}, args...)...)
		if code != exitcode.Usage || !strings.Contains(stderr, "--tls") || strings.Contains(stderr, "starting a throwaway") ||
			strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%v: exit %d, want %d naming --tls in one line before any work\n%s", args, code, exitcode.Usage, stderr)
		}
	}
}

// TestTLSRun: with --tls the clients reach temp-postgres, directly and
// through txnbench's PgBouncer, over TLS verified against the run's CA;
// the run's invariants hold, and the header, JSON and HTML say which TLS
// the clients' connections negotiated.
func TestTLSRun(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"direct", nil},
		{"via-pgbouncer", []string{"--via", "pgbouncer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			js, html := filepath.Join(dir, c.name+".json"), filepath.Join(dir, c.name+".html")
			args := []string{"run", "connect-overhead", "--db", "temp-postgres", "--tls", "--conn", "per-txn", "--rows", "300",
				"--clients", "2", "--iterations", "40", "--telemetry", "off", "--json", js, "--html", html}
			code, out, stderr := clitest.RunBinary(t, append(args, c.args...)...)
			if code != 0 || !strings.Contains(out, "invariants: OK") {
				t.Fatalf("exit %d, want invariants OK\n%s\n%s", code, out, stderr)
			}
			r := clitest.LoadResult(t, js)
			if r.TLS == nil || !strings.HasPrefix(r.TLS.Version, "TLS 1.") || r.TLS.Cipher == "" || r.TLS.Verify != "sslmode=verify-full against the run's CA" {
				t.Fatalf("tls = %+v, want the negotiated version and cipher, verified against the run's CA", r.TLS)
			}
			if line := "tls        " + r.TLS.String() + "\n"; !strings.Contains(out, line) {
				t.Errorf("header without %q:\n%s", line, out)
			}
			if h, err := os.ReadFile(html); err != nil || !strings.Contains(string(h), r.TLS.Cipher) {
				t.Errorf("HTML without the TLS cipher (%v)", err)
			}
			if ok, _ := r.Transactions(); ok != 40 {
				t.Errorf("%d transactions, want 40", ok)
			}
		})
	}
}

// TestTLSImpostorRefused: while a fault holds a --tls run's server (or
// PgBouncer) down, a fake server run as another local user (nobody) takes
// its port and serves TLS with a certificate it made itself, or refuses
// TLS. The clients ask it for TLS, refuse its certificate (it is not the
// run's CA's) or its plain text, and send it nothing; their refusals are
// errors of class auth (a refused TLS was class other before), and the run
// ends with its invariants OK. Without verify-full (sslmode=disable, as
// before --tls) the clients never asked for TLS. The runs (each its own
// server and impostor on its own port) run side by side.
func TestTLSImpostorRefused(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	server, pooler := clitest.ServerReady, clitest.PoolerReady
	for _, c := range []struct {
		name  string
		args  []string
		port  string
		fault string
		kind  clitest.ImpostorKind
	}{
		{"kill-server", nil, server, "2s:kill-server:5s", clitest.PGTLSImpostor},
		{"kill-pooler", []string{"--via", "pgbouncer"}, pooler, "2s:kill-pooler:5s", clitest.PGTLSImpostor},
		{"kill-server-no-tls", nil, server, "2s:kill-server:5s", clitest.PGImpostor},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), "tls-"+c.name+".json")
			args := append([]string{"run", "train-events", "--db", "temp-postgres", "--tls", "--clients", "3", "--duration", "9s",
				"--progress", "1s", "--fault", c.fault, "--json", out}, clitest.Quick...)
			code, stdout, stderr, port, rep := clitest.RunAgainstImpostor(t, c.port, c.kind, append(args, c.args...)...)
			asked := rep.SSLRequests // the TLS impostor counts the clients that asked
			if c.kind == clitest.PGImpostor {
				asked = rep.Conns // the other one answers every TLS request no
			}
			if !rep.Bound || asked == 0 {
				t.Fatalf("the impostor did not get port %s or no client asked it for TLS (bound %v, %d connections, %d TLS requests, %d startups): nothing tested\n%s",
					port, rep.Bound, rep.Conns, rep.SSLRequests, rep.Startups, stderr)
			}
			if rep.Handshakes > 0 || rep.Startups > 0 || len(rep.Sent) > 0 {
				t.Errorf("clients went on with the impostor: %d handshakes, %d startups, %d messages", rep.Handshakes, rep.Startups, len(rep.Sent))
			}
			if code != exitcode.OK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("exit %d, want a verdict of OK:\n%s\n%s", code, stdout, stderr)
			}
			// A refused certificate, or TLS refused, is class auth, as a
			// refused password is.
			clitest.RefusalsAsAuth(t, out, fmt.Sprintf("%d connections, %d TLS requests", rep.Conns, rep.SSLRequests))
		})
	}
}

// TestStudyNetworkTLS: a study's cells on temp-postgres get the --network
// and --tls they were given, direct and through txnbench's PgBouncer
// alike: each cell's result has the shape, its proxy's hold of at least
// half the round trip asked (by its own clock), a measured round trip and
// the TLS. Before, the study's shared cluster left --network out.
func TestStudyNetworkTLS(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	out := t.TempDir()
	code, stdout, stderr := clitest.RunBinary(t, "study", "connect-overhead", "--db", "temp-postgres", "--network", "rtt=2ms", "--tls",
		"--vary", "via=direct,pgbouncer", "--conn", "per-txn", "--clients", "2", "--iterations", "20", "--rows", "300",
		"--telemetry", "off", "--settle", "0s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, cell := range []string{"cell01-rep1.json", "cell02-rep1.json"} {
		r := clitest.LoadResult(t, filepath.Join(out, cell))
		if n := r.Network; n == nil || n.Shape != "rtt=2ms" || n.MeasuredRTTMs <= 0 || n.ProxyHeldMs < 1 {
			t.Errorf("%s (via %s): network %+v, want rtt=2ms, measured, held at least 1 ms by the proxy's clock", cell, r.Config.Via, r.Network)
		}
		if r.TLS == nil {
			t.Errorf("%s (via %s): no TLS recorded", cell, r.Config.Via)
		}
	}
}
