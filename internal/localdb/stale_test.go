package localdb

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

// TestSweepSparesOtherUsers: the sweep of a dead run's directory kills
// the processes of the run's users that name it (here one of ours), never
// another local user's that names it in a command line of its own (as
// root, the sweep could kill any process that did).
func TestSweepSparesOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to start a process as nobody")
	}
	dir, err := os.MkdirTemp(os.TempDir(), dirPrefix+"*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, tempdir.MarkerName), []byte("999999999 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(cred *syscall.Credential) *exec.Cmd {
		// sh -c's script names the path; sleep outlives the test's wait.
		c := exec.Command("sh", "-c", "sleep 60 # "+dir+"/data", "sweep-test")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() })
		return c
	}
	ours := start(nil)
	theirs := start(&syscall.Credential{Uid: 65534, Gid: 65534})
	exited := func(c *exec.Cmd) chan struct{} {
		ch := make(chan struct{})
		go func() { _, _ = c.Process.Wait(); close(ch) }()
		return ch
	}
	oursDone, theirsDone := exited(ours), exited(theirs)

	killLeftoverServer(dir)

	select {
	case <-oursDone:
	case <-time.After(10 * time.Second):
		t.Error("the dead run's own process naming its directory still runs after the sweep")
	}
	select {
	case <-theirsDone:
		t.Error("the sweep killed another user's process that only named the directory")
	case <-time.After(200 * time.Millisecond):
	}
}
