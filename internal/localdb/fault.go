package localdb

import (
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/txnbench/txnbench/internal/tempdir"
)

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
	procs := append([]procRef{{s.pid, tempdir.StartTime(s.pid)}}, childrenOf(s.pid)...)
	for _, pr := range procs {
		_ = syscall.Kill(pr.pid, syscall.SIGSTOP)
	}
	return func() {
		for _, pr := range procs {
			if tempdir.Alive(pr.pid, pr.start) {
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
