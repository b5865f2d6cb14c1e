package interrupts

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestSecondInterruptMidRunExits130: two Ctrl-Cs in quick succession mid
// run exit 130 even when the run, its server killed under it, fails
// before the servers are gone. A directory slow to remove (planted in
// the cluster's) keeps the second interrupt's cleanup busy while the run
// fails on the killed server; the exit status must still say interrupted,
// and the run's error is not printed.
func TestSecondInterruptMidRunExits130(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	cmd, _, stderr := clitest.Start(t, "run", "workflow", "--db", "temp-postgres", "--clients", "2", "--signal-workers", "2",
		"--duration", "60s", "--progress", "300ms", "--telemetry", "off")
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	port := clitest.ServerPort(t, stderr)
	n, _ := strconv.Atoi(port)
	ps, _ := os.ReadFile("/proc/" + clitest.OurPostmaster(t, n) + "/cmdline")
	d := regexp.MustCompile(`-D\x00([^\x00]+)/data\x00`).FindSubmatch(ps)
	if d == nil {
		t.Fatalf("no data directory in %q", ps)
	}
	junk := filepath.Join(string(d[1]), "junk")
	for i := 0; i < 200; i++ {
		sub := filepath.Join(junk, strconv.Itoa(i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 100; j++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprint(j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	// The second press once the first is seen, at once: two signals sent
	// before a busy machine schedules the process are delivered as one.
	clitest.WaitFor(t, stderr, 0, "interrupted: stopping clients")
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitExitCode(t, cmd, 60*time.Second, stderr, exitcode.Interrupted)
	if i := strings.Index(stderr.String(), "interrupted again"); i < 0 || strings.Contains(stderr.String()[i:], "\ntxnbench: ") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	clitest.CheckClusterGone(t, port)
	if _, err := os.Stat(string(d[1])); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", d[1], err)
	}
}
