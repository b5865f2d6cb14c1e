package engines

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestRunSaysWhatTheDataWas: a run over data loaded with --rows 200 but
// asked for --rows 5000 says it uses the existing data, shows and saves
// what it found and the rows it was made with.
func TestRunSaysWhatTheDataWas(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "te.db")
	clitest.MustRun(t, "init", "train-events", "--db", db, "--rows", "200")
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "train-events", "--db", db, "--iterations", "3", "--clients", "1", "--json", out}, clitest.Quick...)
	stdout, stderr := clitest.MustRun(t, append(args, "--rows", "5000")...)
	if want := "using the existing train-events data: 200 events, loaded with --rows 200 (--rows 5000 applies only with --reinit)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	plain.Contains(t, "output", stdout, "rows=200 ", "\ndata       archived=0 events=200 status=200\n")
	r := clitest.LoadResult(t, out)
	if r.Data["events"] != 200 || r.Data["status"] != 200 || r.Settings["rows"] != float64(200) {
		t.Errorf("saved data %v, settings rows %v", r.Data, r.Settings["rows"])
	}
}

// TestInterruptedLoadIsRefused interrupts the real command's load with
// SIGTERM; the next run refuses the partial data with exit 2 naming
// --reinit, and a run with --reinit loads it again.
func TestInterruptedLoadIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "te.db")
	db := "sqlite:" + path
	cmd, _, stderr := clitest.Start(t, "init", "train-events", "--db", db, "--rows", "300000")
	if !testutil.Poll(30*time.Second, 20*time.Millisecond, func() bool { return sqliteCount(path, "events_jsonb") > 0 }) {
		t.Fatalf("the load never started:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code == exitcode.OK {
		t.Fatalf("the interrupted init exited 0:\n%s", stderr.String())
	}

	args := append([]string{"run", "train-events", "--db", db, "--iterations", "3", "--clients", "1"}, clitest.Quick...)
	run := exec.Command(os.Args[0], args...)
	run.Env = cmd.Env
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	run.Run()
	if code := run.ProcessState.ExitCode(); code != exitcode.Usage ||
		!strings.Contains(out.String(), "train-events jsonb data in the database is incomplete (an earlier load was interrupted") ||
		!strings.Contains(out.String(), "run with --reinit") {
		t.Fatalf("run on the partial data: exit %d, want %d naming --reinit:\n%s", code, exitcode.Usage, out.String())
	}
	clitest.MustRun(t, append(args, "--reinit")...)
}

// sqliteCount counts table's rows in the SQLite file at path; 0 when it
// cannot (the table is not there yet).
func sqliteCount(path, table string) int64 {
	ctx := context.Background()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	tg, err := target.OpenURL(ctx, "sqlite:"+path)
	if err != nil {
		return 0
	}
	defer tg.Close()
	c, err := tg.Connect(ctx)
	if err != nil {
		return 0
	}
	defer c.Close(ctx)
	return testutil.CountRows(c, table)
}
