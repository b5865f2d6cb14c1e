package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

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
		code, _, stderr := runMain("run", "train-events", "--db", "temp-postgres", "--connect-timeout", v)
		if code != exitcode.Usage || !strings.Contains(stderr, "--connect-timeout") || strings.Contains(stderr, "starting a throwaway PostgreSQL") {
			t.Errorf("--connect-timeout %s: exit %d, want %d naming the flag before any work\n%s", v, code, exitcode.Usage, stderr)
		}
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string { return s[max(0, len(s)-n):] }
