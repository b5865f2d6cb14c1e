package localdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// supervised is what a cluster and a PgBouncer share: a process txnbench
// runs from a directory of its own on a port, restarted on the same port
// and stopped together with its directory.
type supervised struct {
	mu      sync.Mutex
	name    string // PostgreSQL or PgBouncer, for messages
	dir     string
	port    int
	srv     *server // the running process; nil when it is stopped
	stopped bool    // Stop was called
	// start starts the process on port and returns the port it got.
	start func(ctx context.Context, port int) (*server, int, error)
	stop  func(*server) error
}

// Restart stops the process and starts it again on the same port and
// directory.
func (p *supervised) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return fmt.Errorf("restarting a stopped %s: start a new one", p.name)
	}
	if p.srv != nil {
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
	return fmt.Errorf("restarting %s on port %d: %w", p.name, p.port, err)
}

// Stop stops the process and removes its directory. It is idempotent and
// safe to call concurrently; it returns an error only if a process or the
// directory is left behind.
func (p *supervised) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	var errs []error
	if p.srv != nil {
		if err := p.stop(p.srv); err != nil {
			errs = append(errs, err)
		} else {
			p.srv = nil
		}
	}
	if err := os.RemoveAll(p.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w: remove it by hand (rm -rf %s)", p.dir, err, p.dir))
	}
	return errors.Join(errs...)
}
