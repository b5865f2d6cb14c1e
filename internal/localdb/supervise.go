package localdb

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

const (
	// superviseTries is how often supervision tries to start a dead
	// process again, superviseWait apart: a killed postmaster's orphaned
	// backends hold its shared memory until they notice and exit.
	superviseTries = 10
	superviseWait  = 500 * time.Millisecond
)

// Event is a process txnbench started that died unasked while supervised
// (Supervise), and what came of starting it again.
type Event struct {
	At   time.Time     // when its death was seen
	Name string        // "PostgreSQL", "PgBouncer" or "HAProxy"
	PID  int           // the process that died
	Exit string        // how it ended, e.g. "signal: killed"
	Took time.Duration // from its death until it ran again, or until supervision gave up
	Err  error         // nil: it runs again on the same port; else why not
}

// killingAll is set once KillAll runs: the process is about to exit, and
// nothing is started again.
var killingAll atomic.Bool

// supervision is a supervised process's watcher settings.
type supervision struct {
	mu      sync.Mutex
	onDeath func(Event)
	ctx     context.Context
	cancel  context.CancelFunc
}

// Supervise starts the process again, on the same port and directory,
// whenever it dies unasked, and then calls onDeath (on a goroutine of its
// own) with what happened. A Restart, Kill or Stop is asked for: the
// process they end is not restarted by supervision. A nil onDeath ends
// supervision; Stop ends it too.
func (p *supervised) Supervise(onDeath func(Event)) {
	p.sup.end()
	if onDeath == nil {
		return
	}
	p.sup.mu.Lock()
	defer p.sup.mu.Unlock()
	p.sup.ctx, p.sup.cancel = context.WithCancel(context.Background())
	p.sup.onDeath = onDeath
}

// end stops supervising, giving up a restart under way.
func (s *supervision) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.onDeath, s.ctx, s.cancel = nil, nil, nil
}

// current returns the supervision's context and callback; a nil callback
// when the process is not supervised.
func (s *supervision) current() (context.Context, func(Event)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx, s.onDeath
}

// Kill sends sig to the process on purpose, as a scheduled fault does
// (SIGKILL: it dies at once; SIGQUIT to a postmaster: an immediate
// shutdown), and waits until it and the children it had are gone (SIGKILL
// after a timeout: an orphaned backend would keep the shared memory a new
// postmaster needs). Supervision leaves it down: it stays down until
// Restart starts it again on the same port (call Restart after the outage
// wanted, or never); Stop still cleans up.
func (p *supervised) Kill(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return fmt.Errorf("killing a stopped %s", p.name)
	}
	s := p.srv
	if s == nil {
		return nil // down already
	}
	kids := childrenOf(s.pid)
	_ = syscall.Kill(s.pid, sig)
	if !waitDone(s, stopTimeout) {
		if err := killServer(s); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(killTimeout)
	for _, k := range kids {
		for tempdir.Alive(k.pid, k.start) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(k.pid, syscall.SIGKILL)
			}
			time.Sleep(pollInterval)
		}
	}
	p.srv = nil
	return nil
}

// watch waits for s to exit and, if nobody asked for that and the process
// is supervised, starts it again and reports the event.
func (p *supervised) watch(s *server) {
	<-s.done
	ctx, onDeath := p.sup.current()
	if onDeath == nil || killingAll.Load() {
		return
	}
	p.mu.Lock()
	if p.stopped || p.srv != s {
		p.mu.Unlock()
		return // stopped, killed or restarted on purpose
	}
	p.srv = nil
	ev := Event{At: time.Now(), Name: p.name, PID: s.pid, Exit: exitText(s.err)}
	for try := 1; ; try++ {
		ev.Err = p.restartLocked(ctx)
		if ev.Err == nil || try == superviseTries || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(superviseWait):
		}
	}
	ev.Took = time.Since(ev.At)
	p.mu.Unlock()
	onDeath(ev)
}

// exitText says how a process ended, from cmd.Wait's error.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
