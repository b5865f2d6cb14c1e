package localdb

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"sync"
)

// running is every process this package started that has not exited, with
// its directory, so that a second interrupt can stop them at once.
var running struct {
	mu    sync.Mutex
	procs map[*server]string
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
	for s, dir := range running.procs {
		procs[s] = dir
	}
	running.mu.Unlock()
	var first error
	for s, dir := range procs {
		if err := killServer(s); err != nil && first == nil {
			first = err
		}
		if err := os.RemoveAll(dir); err != nil && first == nil {
			first = fmt.Errorf("removing %s: %w: remove it by hand (rm -rf %s)", dir, err, dir)
		}
	}
	return first
}
