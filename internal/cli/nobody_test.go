package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
)

// runAsNobody runs the real command as the unprivileged local user nobody,
// from a copy of the test binary nobody can run, in cwd, with HOME a
// directory of nobody's own. It needs root (CI runs as root).
func runAsNobody(t *testing.T, cwd string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := nobodyCommand(t, args...)
	cmd.Dir = cwd
	cmd.Env = append(cmd.Env, "TXNBENCH_CLI_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// nobodyCommand is the test binary with args, to run as the unprivileged
// local user nobody: a copy nobody can run, with HOME a directory of
// nobody's own. It skips the test unless it runs as root.
func nobodyCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot act as user nobody")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skip(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "txnbench-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "txnbench")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chown(home, uid, gid)
	os.Chmod(dir, 0o755)
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return cmd
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
