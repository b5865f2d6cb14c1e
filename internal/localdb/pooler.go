package localdb

import (
	"context"
	"fmt"
)

// poolerPrep says what preparePooler needs to know about a pooler (a
// PgBouncer or an HAProxy) before its own configuration is written.
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
}

// preparePooler does what starting any pooler begins with: it resolves the
// user the pooler runs as, checks that user can reach the binary, reads its
// version, raises RLIMIT_NOFILE, makes and claims its temporary directory,
// and sets p up to start with start (on the port it is given) and stop with
// stop. On error it leaves nothing behind.
func (p *supervised) preparePooler(c poolerPrep, start func(context.Context, int) (*server, error), stop func(*server) error) (u *runAs, version string, err error) {
	u, err = unprivilegedUser(c.proc)
	if err != nil {
		return nil, "", err
	}
	if err := u.checkReachable(c.bin); err != nil {
		return nil, "", fmt.Errorf("%s at %s is not usable by user %s: %w: install it where that user can reach it, or run txnbench as a normal user", c.proc, c.bin, u.name, err)
	}
	if version, err = c.version(c.bin); err != nil {
		return nil, "", err
	}
	if err := raiseNofile(c.nofile, c.maxConn); err != nil {
		return nil, "", err
	}
	dir, err := tempDir(c.dirPrefix)
	if err != nil {
		return nil, "", err
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
		return nil, "", err
	}
	if err := claimDir(dir, u, c.proc); err != nil {
		return nil, "", err
	}
	return u, version, nil
}
