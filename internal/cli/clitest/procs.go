package clitest

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/testutil"
)

// patience is how long WaitFor and InterruptWhen wait for what they wait
// for: far more than a quiet machine needs, since a throwaway server may
// take most of a minute to start on a busy one. A test that passes never
// waits it out.
const patience = 3 * time.Minute

// WaitFor polls until s holds a match of re after position from, or fails
// after patience.
func WaitFor(t testing.TB, s *Buffer, from int, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	if testutil.Poll(patience, 50*time.Millisecond, func() bool { return rx.MatchString(s.String()[from:]) }) {
		return
	}
	t.Fatalf("no %q within %s:\n%s", re, patience, s.String())
}

// WaitExit waits for cmd to exit within limit and returns how long it
// took; past limit it fails with what cmd was doing (SIGQUIT makes a Go
// program print its goroutines).
func WaitExit(t testing.TB, cmd *exec.Cmd, limit time.Duration, stderr *Buffer) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return time.Since(start)
	case <-time.After(limit):
	}
	cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	t.Fatalf("still running %s:\n%s", limit, stderr.String())
	return 0
}

// WaitExitCode is WaitExit that then fails the test unless cmd exited
// with want, quoting its stderr; it returns how long cmd took to exit.
func WaitExitCode(t testing.TB, cmd *exec.Cmd, limit time.Duration, stderr *Buffer, want int) time.Duration {
	t.Helper()
	took := WaitExit(t, cmd, limit, stderr)
	if code := cmd.ProcessState.ExitCode(); code != want {
		t.Fatalf("exit %d after %s, want %d\nstderr:\n%s", code, took, want, stderr.String())
	}
	return took
}

// ServerPort is the port of the throwaway server a run started, read from
// its "ready on 127.0.0.1:PORT" line on stderr (the first such line),
// failing the test if stderr has none.
func ServerPort(t testing.TB, stderr *Buffer) string {
	t.Helper()
	m := regexp.MustCompile(`ready on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no port in stderr:\n%s", stderr.String())
	}
	return m[1]
}

// InterruptWhen waits up to patience for what cmd wrote to stderr to
// satisfy ready, then sends cmd SIGTERM (ready or not) and returns
// cmd.Wait's error.
func InterruptWhen(cmd *exec.Cmd, stderr *Buffer, ready func(string) bool) error {
	testutil.Poll(patience, 50*time.Millisecond, func() bool { return ready(stderr.String()) })
	cmd.Process.Signal(syscall.SIGTERM)
	return cmd.Wait()
}

// OurPostmaster is the pid of the postmaster on port that this test
// started, itself or through the txnbench it runs: a postgres of another
// run (or any process named so) is never it.
func OurPostmaster(t testing.TB, port int) string {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", "postgres .*-p "+strconv.Itoa(port)+"( |$)").Output()
	matched := strings.Fields(string(out))
	var pids []string
	for _, p := range matched {
		// a backend just forked has the postmaster's command line until it
		// names itself: the postmaster is the one whose parent is not matched
		if pid, _ := strconv.Atoi(p); descendsFromTest(pid) && !slices.Contains(matched, strconv.Itoa(parentOf(pid))) {
			pids = append(pids, p)
		}
	}
	if len(pids) != 1 {
		t.Fatalf("postmaster on port %d started by this test: pids %q (of %q)", port, pids, out)
	}
	return pids[0]
}

// parentOf is process pid's parent's pid, 0 when it cannot be read.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// the parent's pid is the second field after the command's ")"
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// descendsFromTest reports whether process pid is a child of the test
// process, or of one of its children, and so on.
func descendsFromTest(pid int) bool {
	for range 64 {
		if pid = parentOf(pid); pid == os.Getpid() {
			return true
		} else if pid <= 1 {
			return false
		}
	}
	return false
}

// StopServer SIGSTOPs the cluster listening on port: the postmaster and
// every backend (each its own process group), found by the port among the
// processes the test started. resume SIGCONTs them; so does the end of
// the test, so the cluster can be removed.
func StopServer(t testing.TB, port int) (resume func()) {
	t.Helper()
	pids := []string{OurPostmaster(t, port)}
	kids, _ := exec.Command("pgrep", "-P", pids[0]).Output()
	pids = append(pids, strings.Fields(string(kids))...)
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	resume = func() {
		for _, p := range pids {
			pid, _ := strconv.Atoi(p)
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	return resume
}

// CheckClusterGone fails the test when something still listens on the
// cluster's port or a postgres process on it is left behind.
func CheckClusterGone(t testing.TB, port string) {
	t.Helper()
	if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
		c.Close()
		t.Errorf("something still listens on the cluster's port %s", port)
	}
	if ps, _ := exec.Command("pgrep", "-f", "postgres .*-p "+port+"( |$)").Output(); len(bytes.TrimSpace(ps)) > 0 {
		t.Errorf("PostgreSQL processes left behind: %s", ps)
	}
}

// BouncersOf returns the pids of the pgbouncers txnbench process pid
// started.
func BouncersOf(t testing.TB, pid int) []int {
	t.Helper()
	return ChildrenNamed(t, pid, "pgbouncer")
}

// ChildrenNamed returns the pids of the processes named name ("" for any)
// whose parent is pid: the ones a txnbench process started, never another
// run's.
func ChildrenNamed(t testing.TB, pid int, name string) []int {
	t.Helper()
	args := []string{"-P", strconv.Itoa(pid)}
	if name != "" {
		args = append(args, "-x", name)
	}
	out, _ := exec.Command("pgrep", args...).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		p, _ := strconv.Atoi(f)
		pids = append(pids, p)
	}
	return pids
}

// NobodyCommand is the test binary with args, to run as the unprivileged
// local user nobody: a copy nobody can run, with HOME a directory of
// nobody's own. It skips the test unless it runs as root.
func NobodyCommand(t testing.TB, args ...string) *exec.Cmd {
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
	dir := EnterableTempDir(t, "txnbench-nobody-")
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "txnbench")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chown(home, uid, gid)
	if err := linkOrCopy(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return cmd
}

// EnterableTempDir is a new directory named prefix* in the system's
// temporary directory that every local user may enter and list (mode
// 0755), as the unprivileged user a throwaway server runs as must, and
// t.TempDir's (under a parent of mode 0700) is not; it is removed when
// the test ends.
func EnterableTempDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// linkOrCopy makes dst the executable src: a hard link where both are on
// one file system, a copy otherwise. A link never opens the program for
// writing, so it cannot meet Go's ETXTBSY race: a copy just written can
// still be open in a child that another test forked meanwhile, until that
// child executes, and executing the copy then fails with "text file busy"
// (as it did for parallel subtests under load).
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
