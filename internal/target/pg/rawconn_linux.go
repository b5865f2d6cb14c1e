package pg

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawConn is a TCP or Unix connection whose reads and writes are plain
// read(2) and write(2) on its non-blocking socket, made without telling
// the Go scheduler a system call is running (syscall.RawSyscall), and
// waiting for readiness through the runtime's poller as net.Conn does.
//
// Why: net.Conn's Read and Write go through entersyscall/exitsyscall.
// On a machine shared with the server, a write to the server wakes a
// backend that often preempts the client thread inside write(2); sysmon
// then finds a P "in a system call", hands it to another thread and keeps
// waking every 20 us. With pgbench -S, 8 clients, -j 2 on 2 cores this
// path measured 1.26 context switches per transaction (a quarter of them
// sysmon's) against pgbench's 0.41, and 0.4 with rawConn; client CPU per
// transaction fell by a sixth (docs/BENCHMARKS.md). These calls never
// block (the socket is non-blocking), so the scheduler need not know.
//
// Deadlines and Close still interrupt a waiting Read or Write: the wait
// is the poller's.
//
// Like any net.Conn it may be read (or written) by two goroutines at
// once: pgx's Close, called while a query waits for its answer, may start
// its background reader beside the query's Read. rmu and wmu keep each
// call's buffer its own until it returns (the poller serialises the
// system calls, not the fields below).
type rawConn struct {
	net.Conn
	rc syscall.RawConn

	// The current Read's buffer and outcome, and the function given to
	// RawConn.Read (made once: a closure per call would allocate).
	rmu    sync.Mutex
	rbuf   []byte
	rn     int
	rerr   error
	readFn func(fd uintptr) bool

	// Bytes the script's reader of answers (answers.go) read ahead of
	// pgconn, and the error its last read met: Read returns them first,
	// so that pgconn reads the stream in order whenever it takes over.
	in inbox

	wmu     sync.Mutex
	wbuf    []byte
	wn      int
	werr    error
	writeFn func(fd uintptr) bool
}

// wrapRaw wraps c when it is a socket; anything else is returned as is.
func wrapRaw(c net.Conn) net.Conn {
	sc, ok := c.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	r := &rawConn{Conn: c, rc: rc}
	r.readFn = r.read
	r.writeFn = r.write
	return r
}

func (c *rawConn) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		switch e {
		case 0:
			c.rn = int(n)
			if n == 0 {
				c.rerr = io.EOF
			}
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait until readable
		default:
			c.rerr = os.NewSyscallError("read", e)
			return true
		}
	}
}

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	if n, err, ok := c.in.take(b); ok {
		c.rmu.Unlock()
		return n, err
	}
	n, err := c.readLocked(b)
	c.rmu.Unlock()
	return n, err
}

func (c *rawConn) readLocked(b []byte) (int, error) {
	c.rbuf, c.rn, c.rerr = b, 0, nil
	err := c.rc.Read(c.readFn)
	n := c.rn
	if err == nil {
		err = c.rerr
	}
	c.rbuf, c.rerr = nil, nil
	if err != nil && err != io.EOF {
		err = &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, err
}

// hold, more and release make rawConn an answerConn.
func (c *rawConn) hold() *inbox {
	if !c.rmu.TryLock() {
		return nil // pgconn's background reader is reading
	}
	if c.in.err != nil {
		c.rmu.Unlock()
		return nil
	}
	return &c.in
}

func (c *rawConn) release() { c.rmu.Unlock() }

func (c *rawConn) more() bool {
	n, err := c.readLocked(c.in.room())
	c.in.w += n
	if err != nil {
		c.in.err = err
		return false
	}
	return true
}

func (c *rawConn) write(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		p := c.wbuf[c.wn:]
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case 0:
			c.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // wait until writable
		default:
			c.werr = os.NewSyscallError("write", e)
			return true
		}
	}
	return true
}

func (c *rawConn) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.wmu.Lock()
	c.wbuf, c.wn, c.werr = b, 0, nil
	err := c.rc.Write(c.writeFn)
	n := c.wn
	if err == nil {
		err = c.werr
	}
	c.wbuf, c.werr = nil, nil
	c.wmu.Unlock()
	if err != nil {
		err = &net.OpError{Op: "write", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, err
}

// quiet reports whether the socket is open and holds no unread byte, as
// a session idle since its last answer is while it can still be used: a
// peek that does not wait (recv MSG_PEEK|MSG_DONTWAIT) finds nothing to
// read. A closed peer (a killed server or pooler) reads as the end of
// the stream, and a server that ended the session has written why. A
// socket a reader waits on is not quiet, and is not waited for: pgx's
// background reader, started by a slow write, stays in Read on an idle
// session until bytes come, holding the read lock (as hold finds).
func (c *rawConn) quiet() bool {
	if !c.rmu.TryLock() {
		return false
	}
	defer c.rmu.Unlock()
	if c.in.r < c.in.w || c.in.err != nil {
		return false
	}
	quiet := false
	err := c.rc.Control(func(fd uintptr) {
		var b [1]byte
		for {
			_, _, e := syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1, syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
			if e == syscall.EINTR {
				continue
			}
			quiet = e == syscall.EAGAIN
			return
		}
	})
	return err == nil && quiet
}
