package poolers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestThousandClientsThroughPgBouncer is seed 004's third test: 1,000
// clients log in at once through txnbench's PgBouncer in front of a
// server with max_connections=100. PgBouncer kept the password in its auth
// file and derived a SCRAM key for every login on its one thread, so
// logins waited past the 10 s connect timeout and pgbench completed 0 of
// 2,000 transactions; now the auth file holds the verifier and pgbench
// waits for a login as long as it takes, as pgbench does. Fixed work (one
// transaction per client), no deadline but the test's own.
func TestThousandClientsThroughPgBouncer(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	cmd := exec.Command(os.Args[0], "pgbench", "--db", "temp-postgres", "--via", "pgbouncer", "--pg-conf", "max_connections=100",
		"-s", "1", "-c", "1000", "-j", "2", "-t", "1")
	cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String()
	if err != nil || !strings.Contains(out, "number of transactions actually processed: 1000/1000\n") ||
		!strings.Contains(out, "number of failed transactions: 0 (0.000%)") || strings.Contains(stderr.String(), "error") {
		t.Fatalf("pgbench -c 1000 through PgBouncer: %v\n%s\n%s", err, out, tail(stderr.String(), 2000))
	}
}

// TestConnectTimeoutFlag: --connect-timeout takes whole seconds or 0;
// anything else is refused before any work, with exit 2.
func TestConnectTimeoutFlag(t *testing.T) {
	for _, v := range []string{"-1s", "1500ms", "soon"} {
		code, _, stderr := clitest.Run("run", "train-events", "--db", "temp-postgres", "--connect-timeout", v)
		if code != exitcode.Usage || !strings.Contains(stderr, "--connect-timeout") || strings.Contains(stderr, "starting a throwaway PostgreSQL") {
			t.Errorf("--connect-timeout %s: exit %d, want %d naming the flag before any work\n%s", v, code, exitcode.Usage, stderr)
		}
	}
}

// TestNetworkRoundTrip: --network rtt=X makes the proxy hold what it
// forwards half of X each way: what it controls, by its own clock, is held
// (a link may wake early by a quarter of its one-way delay at most, so
// its mean hold is at least half the round trip asked). The round trip
// measured through the path, before the run and during its window, is
// the machine's as much as the proxy's: the test holds that it was
// measured and shown (header, JSON, HTML), not its figure; bench/network.sh
// measures how near it comes.
func TestNetworkRoundTrip(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	dir := t.TempDir()
	for _, rtt := range []time.Duration{500 * time.Microsecond, 10 * time.Millisecond} {
		js, html := filepath.Join(dir, rtt.String()+".json"), filepath.Join(dir, rtt.String()+".html")
		args := append([]string{"run", "train-events", "--db", dbURL, "--network", "rtt=" + rtt.String(), "--iterations", "5", "--clients", "1",
			"--telemetry", "off", "--json", js, "--html", html}, clitest.Quick...)
		code, out, stderr := clitest.RunBinary(t, args...)
		if code != 0 {
			t.Fatalf("--network rtt=%s: exit %d\n%s\n%s", rtt, code, out, stderr)
		}
		r := clitest.LoadResult(t, js)
		n := r.Network
		if n == nil {
			t.Fatalf("--network rtt=%s: no network in the JSON", rtt)
		}
		if held := time.Duration(n.ProxyHeldMs * float64(time.Millisecond)); held < rtt/2 {
			t.Errorf("--network rtt=%s: the proxy held chunks %s a round trip by its clock, want at least %s", rtt, held, rtt/2)
		}
		if n.RTTMs != float64(rtt)/float64(time.Millisecond) || n.MeasuredRTTMs <= 0 || n.WindowRTTMs <= 0 || n.WindowRTTProbes == 0 {
			t.Errorf("--network rtt=%s: network %+v, want the asked rtt and both measured ones", rtt, n)
		}
		line := "network    " + n.String()
		if n.Shape != "rtt="+rtt.String() || !strings.Contains(out, line+"\n") || !strings.Contains(line, "ms during the run") {
			t.Errorf("--network rtt=%s: shape %q, header without %q:\n%s", rtt, n.Shape, line, out)
		}
		if h, err := os.ReadFile(html); err != nil || !strings.Contains(string(h), "during the run") {
			t.Errorf("--network rtt=%s: HTML without the round trip during the run (%v)", rtt, err)
		}
	}
}

// TestNetworkProxyCPU: the shaped proxy runs inside txnbench; its CPU over
// the window is counted apart (network.proxy_cpu_s) and the report says
// it is not the client's. Fixed work: 60 connect-per-transaction cycles.
func TestNetworkProxyCPU(t *testing.T) {
	dbURL := testutil.SharedPostgres(t)
	js := filepath.Join(t.TempDir(), "r.json")
	code, out, stderr := clitest.RunBinary(t, "run", "connect-overhead", "--db", dbURL, "--network", "rtt=0ms", "--conn", "per-txn",
		"--rows", "300", "--clients", "2", "--iterations", "60", "--telemetry", "off", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := clitest.LoadResult(t, js)
	if r.Network == nil || r.Network.ProxyCPUS <= 0 {
		t.Fatalf("network = %+v, want the proxy's CPU counted", r.Network)
	}
	if line := r.Network.ProxyCPU(r.MeasuredS); !strings.Contains(out, "\n           "+line+"\n") || !strings.Contains(line, "not the client's") {
		t.Errorf("report without %q under the client's line:\n%s", line, out)
	}
}

// TestPoolerNetwork: --pooler-network puts the network between
// txnbench's PgBouncer and the server (PgBouncer then reaches
// temp-postgres over TCP through the proxy, logging in with the clients'
// SCRAM keys): the proxy holds what it forwards at least half the round
// trip asked, by its own clock, and the round trip measured through it is
// shown.
func TestPoolerNetwork(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	js := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", "temp-postgres", "--via", "pgbouncer", "--pooler-network", "rtt=2ms",
		"--iterations", "5", "--clients", "2", "--telemetry", "off", "--json", js}, clitest.Quick...)
	code, out, stderr := clitest.RunBinary(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := clitest.LoadResult(t, js)
	if r.Network == nil || r.Network.PoolerShape != "rtt=2ms" || r.Network.Shape != "" {
		t.Fatalf("network = %+v, want the pooler's rtt=2ms alone", r.Network)
	}
	if n := r.Network; n.PoolerMeasuredRTTMs <= 0 || n.PoolerHeldMs < 1 {
		t.Errorf("pooler to server: measured rtt %.2f ms, the proxy held %.2f ms by its clock; want one measured, and at least half the 2 ms asked held", n.PoolerMeasuredRTTMs, n.PoolerHeldMs)
	}
	if !strings.Contains(out, "network    pooler to server rtt=2ms, measured rtt") {
		t.Errorf("header without the pooler's network:\n%s", out)
	}
}

// TestNetworkFlagRefused: bad --network and --pooler-network values exit 2 before anything
// starts, naming the flag.
func TestNetworkFlagRefused(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"--db", "temp-postgres", "--network", "rtt=fast"}},
		{[]string{"--db", "temp-postgres", "--network", "2ms"}},
		{[]string{"--db", "temp-postgres", "--network", "rtt=2ms,loss=2"}},
		{[]string{"--db", "temp-postgres", "--network", "rtt=2ms,jitter=5ms"}},
		{[]string{"--db", "temp-postgres", "--network", "rtt=2ms,rate=lots"}},
		{[]string{"--network", "rtt=2ms"}}, // the temporary SQLite: no network to make
		{[]string{"--db", "temp-postgres", "--via", "pgbouncer", "--pooler-network", "rtt=2ms,jitter=-1ms"}},
		{[]string{"--db", "temp-postgres", "--pooler-network", "rtt=2ms"}}, // no pooler of txnbench's
	} {
		code, _, stderr := clitest.RunBinary(t, append([]string{"run", "train-events"}, c.args...)...)
		if code != exitcode.Usage || !strings.Contains(stderr, "network") || strings.Contains(stderr, "starting a throwaway") {
			t.Errorf("%v: exit %d, want %d naming --network before any work\n%s", c.args, code, exitcode.Usage, stderr)
		}
	}
}

// TestCPUsFlag: bad --cpus values exit 2 before any work; a run with
// parts sharing a CPU says so in its header.
func TestCPUsFlag(t *testing.T) {
	for _, v := range []string{"server", "disk=0", "server=5000", "server=1-0", "server=0,server=0"} {
		code, _, stderr := clitest.RunBinary(t, "run", "train-events", "--db", "temp-postgres", "--cpus", v)
		if code != exitcode.Usage || !strings.Contains(stderr, "--cpus") || strings.Contains(stderr, "starting a throwaway") {
			t.Errorf("--cpus %s: exit %d, want %d naming --cpus before any work\n%s", v, code, exitcode.Usage, stderr)
		}
	}
	testutil.NeedPostgres(t)
	args := append([]string{"run", "train-events", "--db", "temp-postgres", "--cpus", "server=0,clients=0", "--iterations", "5", "--clients", "1", "--telemetry", "off"}, clitest.Quick...)
	code, out, stderr := clitest.RunBinary(t, args...)
	if code != 0 || !strings.Contains(out, "note       --cpus: the server and the clients share CPU 0") {
		t.Errorf("--cpus server=0,clients=0: exit %d, want a note that they share CPU 0\n%s\n%s", code, out, stderr)
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string { return s[max(0, len(s)-n):] }
