package engines

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestWorkflowRun: txnbench run workflow on the embedded default polls
// (and says why), prints the seed's correctness counters as the check's
// line and saves the workers' transactions and the phases; --wake notify
// where there is no LISTEN/NOTIFY is refused as a usage error.
func TestWorkflowRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, _ := clitest.MustRun(t, "run", "workflow", "--iterations", "8", "--clients", "2", "--signal-workers", "2", "--poll-interval", "5ms", "--json", out)
	plain.Contains(t, "output", stdout, "failures 0, dead-lettered 0, runtime conflicts 0, stuck 0", "signal workers poll every 5ms: SQLite has no LISTEN/NOTIFY", "signal_to_completion", "invariants: OK")
	r := clitest.LoadResult(t, out)
	for name, kind := range map[string]result.Kind{"start": result.KindTxn, "signal_publish": result.KindTxn, "await": result.KindTxn, "claim": result.KindTxn, "apply": result.KindTxn, "signal_to_completion": result.KindPhase, "workflow": result.KindPhase} {
		if o := r.Op(name); o == nil || o.Kind != kind {
			t.Errorf("saved op %s: %+v, want kind %s", name, o, kind)
		}
	}
	code, _, stderr := clitest.Run("run", "workflow", "--iterations", "1", "--wake", "notify")
	if code != exitcode.Usage || !strings.Contains(stderr, "--wake notify needs LISTEN/NOTIFY, which SQLite lacks: use --wake poll") {
		t.Errorf("--wake notify on SQLite: exit %d, %s", code, stderr)
	}
}

// TestWorkflowTooManySignalWorkers: more signal workers than the process
// may open files for fails (exit 1) with one line that names the flag to
// lower.
func TestWorkflowTooManySignalWorkers(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	cmd := exec.Command("prlimit", "--nofile=300", "--", os.Args[0], "run", "workflow", "--signal-workers", "1000", "--iterations", "2", "--clients", "1")
	cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Failure || !regexp.MustCompile(`(?m)^txnbench: connecting signal worker \d+ of 1000: .*: give fewer --signal-workers$`).MatchString(stderr.String()) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
