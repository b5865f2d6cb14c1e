package localdb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"
)

// running is every process this package started that has not exited, with
// its directory, every temporary directory it made and has not removed,
// and the process groups of the commands it runs to set one up (initdb),
// so that a second interrupt can stop them and remove the directories at
// once, also in the middle of a start.
var running struct {
	mu     sync.Mutex
	procs  map[*server]string
	dirs   map[string]bool
	groups map[int]bool
}

// own records dir, a temporary directory just made, until disown.
func own(dir string) {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.dirs == nil {
		running.dirs = map[string]bool{}
	}
	running.dirs[dir] = true
}

// disown forgets dir, removed.
func disown(dir string) {
	running.mu.Lock()
	defer running.mu.Unlock()
	delete(running.dirs, dir)
}

// tool is a program run once to set a server up (initdb, pg_basebackup,
// mariadb-install-db), as the servers' user.
type tool struct {
	path string
	args []string
	dir  string
	env  []string
	user *runAs
	// what names it in the error of a failed run ("initdb"), detail
	// says why from its output
	what   string
	detail func(out []byte) string
}

// run runs t in a process group of its own, recorded while it runs so
// that KillAll kills it too; a cancelled ctx kills the whole group (the
// tool's own children, such as initdb's single-user postgres, with it).
func (t tool) run(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, t.path, t.args...)
	cmd.Dir = t.dir
	cmd.Env = t.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, t.user.credential())
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := runGroup(cmd); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s interrupted: %w", filepath.Base(t.path), ctx.Err())
		}
		return fmt.Errorf("%s failed: %s: %w", t.what, t.detail(out.Bytes()), err)
	}
	return nil
}

// lastLinesOf summarizes a tool's output by its last three lines.
func lastLinesOf(out []byte) string { return summarize(lastLines(out, 3)) }

// runGroup runs cmd, started in a process group of its own (Setpgid),
// recording the group while it runs so that KillAll kills it too.
func runGroup(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	running.mu.Lock()
	if running.groups == nil {
		running.groups = map[int]bool{}
	}
	running.groups[pgid] = true
	running.mu.Unlock()
	defer func() {
		running.mu.Lock()
		delete(running.groups, pgid)
		running.mu.Unlock()
	}()
	return cmd.Wait()
}

// reap makes the server for a started cmd, tracks it until it exits and
// reaps it on a goroutine.
func reap(name string, cmd *exec.Cmd, logMark int64, dir string) *server {
	s := &server{name: name, cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{}), logMark: logMark}
	running.mu.Lock()
	if running.procs == nil {
		running.procs = map[*server]string{}
	}
	running.procs[s] = dir
	running.mu.Unlock()
	go func() {
		s.err = cmd.Wait()
		running.mu.Lock()
		delete(running.procs, s)
		running.mu.Unlock()
		close(s.done)
	}()
	return s
}

// Running describes the servers and poolers started here that are still
// running, e.g. "postgres (pid 1234)"; empty when there are none.
func Running() []string {
	running.mu.Lock()
	defer running.mu.Unlock()
	var out []string
	for s := range running.procs {
		out = append(out, fmt.Sprintf("%s (pid %d)", s.name, s.pid))
	}
	sort.Strings(out)
	return out
}

// KillAll stops every server and pooler started here at once, whatever
// state they are in (SIGKILL to them and their children; a stopped process
// dies too), and removes their directories, for a process about to exit.
func KillAll() error {
	killingAll.Store(true) // supervision must not start them again
	running.mu.Lock()
	procs := make(map[*server]string, len(running.procs))
	dirs := map[string]bool{}
	for s, dir := range running.procs {
		procs[s] = dir
		dirs[dir] = true
	}
	for dir := range running.dirs {
		dirs[dir] = true
	}
	groups := make([]int, 0, len(running.groups))
	for g := range running.groups {
		groups = append(groups, g)
	}
	running.mu.Unlock()
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	var first error
	for s := range procs {
		if err := killServer(s); err != nil && first == nil {
			first = err
		}
	}
	for dir := range dirs {
		if err := removeKilled(dir); err != nil && first == nil {
			first = fmt.Errorf("removing %s: %w: remove it by hand (rm -rf %s)", dir, err, dir)
		}
	}
	return first
}

// removeKilled removes dir, trying again for a moment: a process killed
// a moment ago may finish a write into it first.
func removeKilled(dir string) error {
	var err error
	for try := 0; try < 20; try++ {
		if err = os.RemoveAll(dir); err == nil {
			disown(dir)
			return nil
		}
		time.Sleep(pollInterval)
	}
	return err
}
