package interrupts

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestInterruptWithReplicas: SIGTERM while a standby is being made
// (pg_basebackup running), mid-run and while a failover promotes a
// standby ends the run with exit 130 and leaves nothing behind: no
// process of the primary's or any standby's, no directory. Each run has
// a TMPDIR of its own, so whatever names it is this run's.
func TestInterruptWithReplicas(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	for _, c := range []struct {
		name  string
		extra []string
		ready func(cmd *exec.Cmd, stderr string) bool
	}{
		{"making a standby", nil, func(cmd *exec.Cmd, _ string) bool {
			return len(clitest.ChildrenNamed(t, cmd.Process.Pid, "pg_basebackup")) > 0
		}},
		{"mid-run", nil, func(_ *exec.Cmd, stderr string) bool { return strings.Contains(stderr, "1.0s |") }},
		{"failing over", []string{"--fault", "1s:failover"}, func(_ *exec.Cmd, stderr string) bool {
			return failoverAt.MatchString(stderr) // 1.0 s, or later on a loaded machine
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := clitest.EnterableTempDir(t, "txnbench-replicas-")
			cmd, _, stderr := clitest.StartWithEnv(t, []string{"TMPDIR=" + tmp}, append(append([]string{"run", "train-events", "--db", "temp-postgres", "--replicas", "2", "--replication", "sync",
				"--duration", "60s", "--progress", "500ms", "--clients", "2"}, c.extra...), clitest.Quick...)...)
			if !testutil.Poll(3*time.Minute, 5*time.Millisecond, func() bool {
				return c.ready(cmd, stderr.String()) || strings.Contains(stderr.String(), "txnbench: ") // it failed: said below
			}) {
				t.Fatalf("never got there:\n%s", stderr)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			clitest.WaitExitCode(t, cmd, time.Minute, stderr, exitcode.Interrupted)
			if left := processesNaming(tmp); len(left) > 0 {
				t.Errorf("processes left behind: %s", strings.Join(left, "; "))
			}
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("left in TMPDIR: %v", names)
			}
		})
	}
}

// failoverAt is the progress line of the failover fault's start.
var failoverAt = regexp.MustCompile(`fault at [0-9.]+ s: failover`)

// processesNaming lists the processes whose command line names dir.
func processesNaming(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if cmd := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(cmd, dir) {
			out = append(out, e.Name()+": "+cmd)
		}
	}
	return out
}
