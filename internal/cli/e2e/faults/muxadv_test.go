package faults

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// TestInterruptInGraceExits130AtOnce: Ctrl-C in the grace period, with
// transactions that would run for minutes more, cancels them at once
// (exit 130, the result saved) rather than waiting out --grace, whether
// the clients run on a goroutine each (a pool as big as they are) or on
// the pool's workers (a pool smaller).
func TestInterruptInGraceExits130AtOnce(t *testing.T) {
	for _, pool := range []string{"6", "2"} {
		t.Run("pool-max="+pool, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			cmd, _, stderr := clitest.Start(t, "run", "train-events", "--clients", "6", "--conn", "pool", "--pool-max", pool,
				"--duration", "500ms", "--grace", "10m", "--rows", "100", "--delay", "1ms",
				"--think-min", "10m", "--think-max", "10m", "--telemetry", "off", "--progress", "100ms", "--json", out)
			clitest.WaitFor(t, stderr, 0, `duration reached`)
			cmd.Process.Signal(syscall.SIGINT)
			clitest.WaitExit(t, cmd, 60*time.Second, stderr)
			if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
			}
			if _, err := os.Stat(out); err != nil {
				t.Errorf("result not saved: %v\nstderr:\n%s", err, stderr.String())
			}
		})
	}
}
