package localdb

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// poolerPrep says what startPooler needs to know about a pooler (a
// PgBouncer or an HAProxy).
type poolerPrep struct {
	name      string // "PgBouncer": for messages
	proc      string // "pgbouncer": the binary, for the user it runs as
	bin       string
	version   func(bin string) (string, error)
	nofile    uint64 // open files it needs (raiseNofile)
	maxConn   int    // the client connections that need them, for the message
	dirPrefix string
	// checkDir rejects a directory its configuration cannot name.
	checkDir func(dir string) error
	// setup records the user and version and prepares what the pooler
	// needs in its directory before its first start.
	setup func(u *runAs, version string) error
	port  int // to start on; 0 picks a free one
}

// startPooler starts a pooler the way every pooler starts: it resolves the
// user the pooler runs as, checks that user can reach the binary, reads its
// version, raises RLIMIT_NOFILE, makes and claims its temporary directory,
// sets p up to start with start (on the port it is given) and stop with
// stop, calls c.setup and starts it. On error it leaves nothing behind.
func (p *supervised) startPooler(ctx context.Context, c poolerPrep, start func(context.Context, int) (*server, error), stop func(*server) error) (err error) {
	u, err := unprivilegedUser(c.proc)
	if err != nil {
		return err
	}
	if err := u.checkReachable(c.bin); err != nil {
		return fmt.Errorf("%s at %s is not usable by user %s: %w: install it where that user can reach it, or run txnbench as a normal user", c.proc, c.bin, u.name, err)
	}
	version, err := c.version(c.bin)
	if err != nil {
		return err
	}
	if err := raiseNofile(c.nofile, fmt.Sprintf("%s for %d client connections", c.name, c.maxConn)); err != nil {
		return err
	}
	dir, err := tempDir(c.dirPrefix)
	if err != nil {
		return err
	}
	p.name, p.dir, p.stop = c.name, dir, stop
	p.start = func(ctx context.Context, port int) (*server, int, error) {
		s, err := start(ctx, port)
		return s, port, err
	}
	defer func() {
		if err != nil {
			_ = p.Stop()
		}
	}()
	if err := c.checkDir(dir); err != nil {
		return err
	}
	if err := claimDir(dir, u, c.proc); err != nil {
		return err
	}
	if err := c.setup(u, version); err != nil {
		return err
	}
	return p.firstStart(ctx, c.port)
}

// onPathOrSbin returns the absolute path of the program name on PATH,
// else sbin when that is executable (often not on a normal user's PATH),
// else "".
func onPathOrSbin(name, sbin string) string {
	if path, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(path); err == nil {
			return abs
		}
	}
	if isExecutable(sbin) {
		return sbin
	}
	return ""
}
