package inputs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// runAsNobody runs the real command as the unprivileged local user nobody,
// from a copy of the test binary nobody can run, in cwd, with HOME a
// directory of nobody's own. It needs root (CI runs as root).
func runAsNobody(t *testing.T, cwd string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := clitest.NobodyCommand(t, args...)
	cmd.Dir = cwd
	cmd.Env = append(cmd.Env, "TXNBENCH_CLI_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	code = clitest.Exited(t, cmd)
	return code, o.String(), e.String()
}

// TestSQLiteInUnwritableDir: as a user who cannot write in the current
// directory, --db sqlite:wf.db is refused before anything runs (exit 2),
// saying where it cannot write and to choose another place; the default
// temporary SQLite still runs.
func TestSQLiteInUnwritableDir(t *testing.T) {
	cwd := t.TempDir()
	os.Chmod(cwd, 0o755) // root's: nobody may enter, not write
	os.Chmod(filepath.Dir(cwd), 0o755)
	code, _, stderr := runAsNobody(t, cwd, "run", "workflow", "--iterations", "2", "--clients", "1", "--signal-workers", "1", "--db", "sqlite:wf.db")
	if want := "txnbench: --db sqlite:wf.db: cannot write in . (permission denied): choose another place\n"; code != exitcode.Usage || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, exitcode.Usage, want)
	}
	code, stdout, stderr := runAsNobody(t, cwd, "run", "workflow", "--iterations", "2", "--clients", "1", "--signal-workers", "1", "--poll-interval", "5ms")
	if code != exitcode.OK || !bytes.Contains([]byte(stdout), []byte("invariants: OK")) {
		t.Errorf("the temporary SQLite as nobody: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestHistoryInUnwritableDir: as a user who cannot write in the directory
// --history names, list-append is refused before anything runs (exit 2,
// one line), where the whole run ran and then failed to save the history
// (exit 1, not checked).
func TestHistoryInUnwritableDir(t *testing.T) {
	cwd, ro := t.TempDir(), t.TempDir()
	for _, d := range []string{cwd, ro, filepath.Dir(cwd)} {
		os.Chmod(d, 0o755) // root's: nobody may enter, not write
	}
	os.Chown(cwd, 65534, 65534) // nobody's: its SQLite file may go here
	hist := filepath.Join(ro, "h.hist")
	code, stdout, stderr := runAsNobody(t, cwd, "run", "list-append", "--db", "sqlite:la.db", "--iterations", "5", "--clients", "1", "--history", hist)
	if want := "txnbench: --history " + hist + ": cannot write in " + ro + " (permission denied): choose another place\n"; code != exitcode.Usage || stderr != want || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q", code, stdout, stderr, exitcode.Usage, want)
	}
}
