package engines

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli"
	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// needMariaDB skips the test when MariaDB's server is not installed,
// unless CI is set, where that is a failure.
func needMariaDB(t *testing.T) {
	t.Helper()
	if !localdb.HasMariaDB() {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set and mariadbd is not installed (apt-get install mariadb-server)")
		}
		t.Skip("mariadbd is not installed")
	}
}

// coMaria is a short connect-overhead run on tiny data.
var coMaria = []string{"run", "connect-overhead", "--rows", "300", "--clients", "2", "--warmup", "0s", "--duration", "1s", "--progress", "1s", "--telemetry", "off"}

// TestMariaDB runs the workloads adapted to MariaDB (connect-overhead,
// workflow) through the binary on one throwaway MariaDB given by its
// mysql:// URL (invariants OK, and a planted loss caught), then a run on
// --db temp-mariadb with every server and network fault injected into it.
func TestMariaDB(t *testing.T) {
	needMariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := localdb.StartMariaDB(ctx, localdb.MariaDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop() })
	url := m.URL()

	t.Run("connect-overhead", func(t *testing.T) {
		for _, q := range [][]string{{"--query", "point"}, {"--query", "complex", "--conn", "per-txn"}} {
			code, stdout, stderr := clitest.Run(append(append(coMaria, "--db", url), q...)...)
			if code != cli.ExitOK || !strings.Contains(stdout, "invariants: OK") || !strings.Contains(stdout, "MariaDB "+m.Version()) {
				t.Fatalf("%v: exit %d: %s\n%s", q, code, stderr, stdout)
			}
			if strings.Contains(stdout+stderr, m.Password()) {
				t.Errorf("the output shows the password")
			}
		}
	})

	t.Run("workflow", func(t *testing.T) {
		for _, sc := range []string{"immediate-burst", "external-resume"} {
			code, stdout, stderr := clitest.Run("run", "workflow", "--db", url, "--scenario", sc, "--clients", "2", "--warmup", "0s", "--duration", "1s",
				"--progress", "1s", "--telemetry", "off")
			if code != cli.ExitOK || !strings.Contains(stdout, "invariants: OK") {
				t.Fatalf("%s: exit %d: %s\n%s", sc, code, stderr, stdout)
			}
			if !strings.Contains(stdout, "signal workers poll every") || !strings.Contains(stdout, "MariaDB has no LISTEN/NOTIFY") {
				t.Errorf("%s: no note on polling:\n%s", sc, stdout)
			}
		}
	})

	t.Run("train-events refused", func(t *testing.T) {
		code, stdout, stderr := clitest.Run("run", "train-events", "--db", url, "--duration", "1s", "--telemetry", "off")
		if code != cli.ExitUsage || !strings.Contains(stderr, "train-events sends its batches as array parameters or a JSON array for json_each(), and MariaDB has neither") {
			t.Errorf("exit %d: %s\n%s", code, stderr, stdout)
		}
	})

	t.Run("planted deletion", func(t *testing.T) {
		tg, err := target.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		c, err := tg.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if n, err := c.Exec(ctx, "DELETE FROM co_order_items ORDER BY id LIMIT 1"); err != nil || n != 1 {
			t.Fatalf("deleting an order item: %d, %v", n, err)
		}
		code, stdout, stderr := clitest.Run(append(coMaria, "--db", url)...)
		if code != cli.ExitInvariants || !strings.Contains(stdout, "FAIL order totals match their items") {
			t.Errorf("after a deleted order item: exit %d, want %d: %s\n%s", code, cli.ExitInvariants, stderr, stdout)
		}
	})

	t.Run("temp-mariadb faults", func(t *testing.T) {
		out := filepath.Join(testutil.Artifacts(t), "faults.json")
		faults := []string{"1s:terminate-backends", "1500ms:reset", "2s:latency:20ms/300ms", "2500ms:blackhole:300ms",
			"3s:hang-server:300ms", "4s:restart-server", "6s:kill-server:200ms"}
		args := append(append([]string{}, coMaria...), "--db", "temp-mariadb", "--mariadb-conf", "innodb_buffer_pool_size=32M",
			"--duration", "8s", "--json", out)
		for _, f := range faults {
			args = append(args, "--fault", f)
		}
		code, stdout, stderr := clitest.Run(args...)
		if code != cli.ExitOK || !strings.Contains(stdout, "invariants: OK") {
			t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
		}
		if !regexp.MustCompile(`MariaDB 10\.\d+\.\d+ ready on 127\.0\.0\.1:\d+`).MatchString(stderr) {
			t.Errorf("no 'MariaDB VERSION ready on 127.0.0.1:PORT':\n%s", stderr)
		}
		r, err := result.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Faults) != len(faults) {
			t.Fatalf("%d faults, want %d: %+v", len(r.Faults), len(faults), r.Faults)
		}
		for i, f := range r.Faults {
			rc := f.Recovery
			switch {
			case !f.Injected || strings.Contains(f.Note, "not injected") || strings.Contains(f.Note, "failed"):
				t.Errorf("%s: %+v", faults[i], f)
			case rc == nil || rc.FirstOKS == nil:
				t.Errorf("%s: no op succeeded after it: %+v", faults[i], f)
			case rc.Invariants != "OK":
				t.Errorf("%s: invariants %q", faults[i], rc.Invariants)
			case f.Kind == "terminate-backends" && (!strings.HasPrefix(f.Note, "2 sessions terminated") || rc.Reconnects == nil || *rc.Reconnects == 0):
				// the two clients' sessions, not the fault's own
				t.Errorf("%s: %s, reconnects %v", faults[i], f.Note, rc.Reconnects)
			}
		}
	})
}
