package localdb

import (
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"
)

// Kill sends sig to the process (SIGKILL: it dies at once; SIGQUIT to a
// postmaster: an immediate shutdown) and waits until it and the children
// it had are gone (SIGKILL after a timeout: an orphaned backend would keep
// the shared memory a new postmaster needs). The process then stays down,
// as asked, until Restart starts it again; Stop still cleans up.
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
		for alive(k.pid, k.start) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(k.pid, syscall.SIGKILL)
			}
			time.Sleep(pollInterval)
		}
	}
	p.srv = nil
	return nil
}

// Pause stops the process and its children (SIGSTOP), as a machine that
// hangs would; resume continues them (SIGCONT). A Stop meanwhile still
// works: SIGKILL ends a stopped process too.
func (p *supervised) Pause() (resume func(), err error) {
	p.mu.Lock()
	s := p.srv
	p.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("%s is not running", p.name)
	}
	procs := append([]procRef{{s.pid, procStartTime(s.pid)}}, childrenOf(s.pid)...)
	for _, pr := range procs {
		_ = syscall.Kill(pr.pid, syscall.SIGSTOP)
	}
	return func() {
		for _, pr := range procs {
			if alive(pr.pid, pr.start) {
				_ = syscall.Kill(pr.pid, syscall.SIGCONT)
			}
		}
	}, nil
}

// Listen listens on a free TCP port of 127.0.0.1 in the range the servers
// get theirs from (below the kernel's range for outgoing connections), for
// a helper txnbench puts beside them such as the fault proxy.
func Listen() (net.Listener, error) {
	var err error
	for attempt := 0; attempt < maxPortTries; attempt++ {
		var port int
		if port, err = pickPortFn(); err != nil {
			return nil, err
		}
		var l net.Listener
		if l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
}
