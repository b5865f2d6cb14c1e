package localdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

// supervised is what a cluster, a PgBouncer and an HAProxy share: a process txnbench
// runs from a directory of its own on a port, restarted on the same port
// and stopped together with its directory.
type supervised struct {
	mu      sync.Mutex
	name    string // PostgreSQL, PgBouncer or HAProxy, for messages
	dir     string
	port    int
	srv     *server // the running process; nil when it is stopped
	stopped bool    // Stop was called
	// start starts the process on port and returns the port it got.
	start func(ctx context.Context, port int) (*server, int, error)
	stop  func(*server) error
	// stopNow, when set, is StopNow's way: no shutdown that waits for
	// clients or writes what a throwaway process no longer needs.
	stopNow func(*server) error
	sup     supervision // restarting it when it dies unasked (Supervise)
}

// Restart stops the process and starts it again on the same port and
// directory.
func (p *supervised) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restartLocked(ctx)
}

// restartLocked is Restart with p.mu held.
func (p *supervised) restartLocked(ctx context.Context) error {
	if p.stopped {
		return fmt.Errorf("restarting a stopped %s: start a new one", p.name)
	}
	if p.srv != nil {
		resume(p.srv)
		if err := p.stop(p.srv); err != nil {
			return fmt.Errorf("restarting %s: %w", p.name, err)
		}
		p.srv = nil
	}
	var err error
	for attempt := 1; attempt <= maxPortTries; attempt++ {
		var s *server
		var port int
		if s, port, err = p.start(ctx, p.port); err == nil {
			p.srv, p.port = s, port
			go p.watch(s)
			return nil
		}
		if !isPortInUse(err) || ctx.Err() != nil {
			break
		}
		// Something took the port while the process was down: it may let go.
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	if holder := portHolder(p.port); holder != "" && ctx.Err() == nil {
		// Another process took the port while ours was down: say who,
		// with the log's last lines.
		e := &startError{err: err, portInUse: true, msg: fmt.Sprintf(
			"restarting %s: port %d on 127.0.0.1 is held by %s, which took it while %s was down (its clients refuse to log in to it): end that process and run again",
			p.name, p.port, holder, p.name)}
		if se := (*startError)(nil); errors.As(err, &se) {
			e.tail, e.logName = se.tail, se.logName
		}
		return e
	}
	return fmt.Errorf("restarting %s on port %d: %w", p.name, p.port, err)
}

// Stop stops the process and removes its directory. It is idempotent and
// safe to call concurrently; it returns an error only if a process or the
// directory is left behind.
func (p *supervised) Stop() error { return p.stopWith(p.stop) }

// StopNow is Stop at once, for a run that was interrupted: nothing is
// left to wait for (PostgreSQL's immediate shutdown skips the checkpoint,
// PgBouncer's skips the safe shutdown, which waits for a server that may
// not answer).
func (p *supervised) StopNow() error {
	if p.stopNow != nil {
		return p.stopWith(p.stopNow)
	}
	return p.Stop()
}

// stopWith is Stop, stopping the process with stop.
func (p *supervised) stopWith(stop func(*server) error) error {
	p.sup.end() // a restart under way gives up
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	var errs []error
	if p.srv != nil {
		resume(p.srv)
		if err := stop(p.srv); err != nil {
			errs = append(errs, err)
		} else {
			p.srv = nil
		}
	}
	if err := os.RemoveAll(p.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w: remove it by hand (rm -rf %s)", p.dir, err, p.dir))
	} else {
		disown(p.dir)
	}
	return errors.Join(errs...)
}

// Port returns the TCP port the process listens on at 127.0.0.1.
func (p *supervised) Port() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.port
}

// PID returns the pid of the running process (it changes after Restart),
// or 0 when it is stopped.
func (p *supervised) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv == nil {
		return 0
	}
	return p.srv.pid
}

// firstStart starts the process for the first time: on port want, or on a
// free port when want is 0, trying another one while the picked port turns
// out to be taken.
func (p *supervised) firstStart(ctx context.Context, want int) error {
	for attempt := 1; ; attempt++ {
		port := want
		if port == 0 {
			var err error
			if port, err = pickPortFn(); err != nil {
				return err
			}
		}
		s, actual, err := p.start(ctx, port)
		if err == nil {
			p.srv, p.port = s, actual
			go p.watch(s)
			return nil
		}
		if want == 0 && attempt < maxPortTries && isPortInUse(err) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// tempDir creates a temporary directory named prefix followed by random
// characters and returns its absolute path. KillAll removes it until
// Stop has.
func tempDir(prefix string) (string, error) {
	dir, err := tempdir.New(prefix)
	if err != nil {
		return "", err
	}
	own(dir)
	return dir, nil
}

// claimDir marks dir as this process's (for CleanStale) and hands it to u,
// who runs the process named proc in it, checking that u can enter it.
func claimDir(dir string, u *runAs, proc string) error {
	if err := tempdir.Claim(dir); err != nil {
		return err
	}
	if err := u.chown(dir); err != nil {
		return err
	}
	if err := u.chown(filepath.Join(dir, tempdir.MarkerName)); err != nil {
		return err
	}
	if err := u.checkReachable(dir); err != nil {
		return fmt.Errorf("temporary directory %s is not reachable by user %s, who runs %s: %w: set TMPDIR to a directory that user can enter, e.g. /tmp", dir, u.name, proc, err)
	}
	return nil
}

// newServerLog returns where a process's output goes: the caller's w, or
// when w is nil the file at path, written as u.
func newServerLog(path string, u *runAs, w io.Writer) *serverLog {
	if w != nil {
		return &serverLog{tail: &tailWriter{w: w}}
	}
	return &serverLog{path: path, user: u}
}

// resume continues s and its children (SIGCONT) before they are asked to
// stop: a process stopped from outside (SIGSTOP) acts on no other signal,
// so its shutdown would wait out every timeout before SIGKILL.
func resume(s *server) {
	_ = syscall.Kill(s.pid, syscall.SIGCONT)
	for _, k := range childrenOf(s.pid) {
		_ = syscall.Kill(k.pid, syscall.SIGCONT)
	}
}
