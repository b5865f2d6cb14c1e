package localdb

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// process is a child for spawn to launch: a server or pooler in its own
// process group, its output in log.
type process struct {
	name     string // "postgres" or "pgbouncer": for Running and errors
	path     string
	args     []string
	env      []string // added to childEnv()
	dir      string
	user     *runAs // nil: run as ourselves
	log      *serverLog
	deathSig syscall.Signal // Pdeathsig: sent when txnbench's thread exits
	binFlag  string         // the flag that picks path, named when it cannot start
}

// readiness says when a launched process is ready and what to say when it
// does not get there.
type readiness struct {
	what    string        // "PostgreSQL", "PgBouncer"
	timeout time.Duration // how long startup may take
	late    string        // after "what": not ready after timeout, "%s" the timeout
	logName string        // what the log tail is from; "" = "server log"
	// ready is polled every pollInterval; an error ends the wait.
	ready func(s *server) (bool, error)
	// exited describes the process exiting before it was ready.
	exited func(s *server) error
}

// spawn launches p and waits until r says it is ready. On failure nothing
// is left running.
func spawn(ctx context.Context, p process, r readiness) (*server, error) {
	s, err := launch(p)
	if err != nil {
		return nil, err
	}
	if err := r.wait(ctx, s, p.log); err != nil {
		_ = killServer(s)
		return nil, err
	}
	return s, nil
}

// launch starts p as a child in its own process group and reaps it on a
// goroutine.
func launch(p process) (*server, error) {
	out, closeOut, err := p.log.open()
	if err != nil {
		return nil, err
	}
	mark := p.log.mark()
	cmd := exec.Command(p.path, p.args...)
	cmd.Dir = p.dir
	cmd.Env = append(childEnv(), p.env...)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: a terminal Ctrl-C reaches txnbench only,
	// and txnbench decides when the child goes down.
	cmd.SysProcAttr = procAttr(p.deathSig, p.user.credential())
	// With a log writer of the caller's, output goes through a pipe; do
	// not wait for it forever once the child has exited.
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Start()
	closeOut()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w: check %s", cmd.Path, err, p.binFlag)
	}
	return reap(p.name, cmd, mark, p.dir), nil
}

// wait polls r.ready until it is true, the process exits, ctx ends or
// r.timeout passes.
func (r readiness) wait(ctx context.Context, s *server, log *serverLog) error {
	timeout := time.NewTimer(r.timeout)
	defer timeout.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if ok, err := r.ready(s); err != nil || ok {
			return err
		}
		select {
		case <-s.done:
			return r.exited(s)
		case <-ctx.Done():
			return &startError{msg: r.what + " startup interrupted: " + ctx.Err().Error(), err: ctx.Err(), logName: r.logName}
		case <-timeout.C:
			return &startError{msg: r.what + " " + fmt.Sprintf(r.late, r.timeout), tail: log.since(s.logMark), logName: r.logName}
		case <-tick.C:
		}
	}
}
