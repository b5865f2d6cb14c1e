// Command pollfloor measures what a Go client spends per transaction on
// `pgbench -S -M prepared` when nothing but the round trip is done, in two
// designs, to know before rewriting txnbench's interpreter whether the
// poll design of issue 40 (docs/BENCHMARKS.md, "Issue 40, round 6") could
// reach pgbench's client CPU per transaction on this machine at all:
//
//   - -mode goroutine: one goroutine per connection, each parking in Go's
//     netpoller when its socket has nothing to read and woken alone:
//     today's txnbench design with none of its other work. Its reads and
//     writes are read(2) and write(2) as raw system calls on the
//     non-blocking socket, the wait the netpoller's (syscall.RawConn), as
//     txnbench's target/pg rawConn; -raw=false: plain net.Conn.
//   - -mode poll: -j workers, each a goroutine locked to its OS thread that
//     owns its share of the connections as a state each (a query in flight,
//     a partial reply read) and waits for all of them with one ppoll(2) per
//     batch, as pgbench's threads do; non-blocking read(2) and write(2).
//   - -mode epoll: the same workers waiting with epoll_pwait(2) on an epoll
//     instance of their own (level-triggered), which saves passing the
//     descriptors to the kernel on every wait.
//   - -mode coro: epoll's workers, but each connection's client is
//     goroutine mode's straight-line code (loop) run as a coroutine
//     (iter.Pull) of its worker: a read that finds nothing yields to the
//     worker, which waits with epoll_pwait and resumes the clients whose
//     sockets became readable, on its own thread. Would txnbench's
//     interpreter keep its blocking code and still wait as pgbench does?
//
// -raw (the default) makes every system call of the transactions a raw one
// (unix.RawSyscall), which keeps its P; -raw=false makes them the usual
// calls that tell the scheduler (entersyscall), which let sysmon hand the
// P off to another thread while the call lasts (see sys).
//
// Each connection does the startup (trust authentication), Parse of
// `SELECT abalance FROM pgbench_accounts WHERE aid = $1` once, then per
// transaction Bind (a random aid in 1..100000*scale, text) + Execute + Sync
// and reads until ReadyForQuery, checking that a DataRow came and no
// ErrorResponse. It keeps no latencies and no statistics. The clients
// always have a query in flight (a closed loop, as pgbench), so a worker's
// poll set is all its connections and nothing ever wakes a worker from
// another thread: the eventfd of the proposed design has nothing to do
// here. It prints "transactions N" and "tps = X"; bench/pgbench.sh times
// it with GNU time beside pgbench, txnbench and bench/floor.c (pgbench.sh
// -P; results in docs/BENCHMARKS.md, "Issue 40, round 7").
//
//	go build -o pollfloor ./bench/pollfloor
//	pollfloor -mode poll -c 8 -j 2 -T 5 -s 10 -host 127.0.0.1 -port 5432
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const query = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"

var (
	stop   atomic.Bool // set when -T has passed: no new transaction starts
	maxAid int64
	raw    bool
)

func main() {
	clients := flag.Int("c", 8, "connections")
	workers := flag.Int("j", 2, "workers (poll, epoll and coro modes)")
	secs := flag.Int("T", 5, "seconds")
	scale := flag.Int64("s", 10, "pgbench scale: aids are 1..100000*scale")
	mode := flag.String("mode", "poll", "poll, epoll, coro or goroutine")
	host := flag.String("host", "127.0.0.1", "server address")
	port := flag.Int("port", 5432, "server port")
	user := flag.String("user", "postgres", "user (trust authentication)")
	flag.BoolVar(&raw, "raw", true, "make the run's system calls raw ones, which keep their P (see sys)")
	flag.Parse()
	maxAid = 100000 * *scale
	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	done := make([]int64, *clients)
	var conns []*conn // poll, epoll and coro modes
	var wg sync.WaitGroup
	switch *mode {
	case "goroutine":
		for i := range *clients {
			c, err := net.Dial("tcp", addr) // TCP_NODELAY is Go's default
			check(err)
			check(setup(c, *user, &reply{}))
			var rw io.ReadWriter = c
			if raw {
				rw = newNetRaw(c)
			}
			wg.Go(func() { done[i] = loop(rw, uint64(i)); c.Close() })
		}
	case "poll", "epoll", "coro":
		for i := range *clients {
			conns = append(conns, dialRaw(*host, *port, *user, uint64(i)))
		}
		for w := range *workers {
			var mine []*conn
			for i := w; i < len(conns); i += *workers {
				mine = append(mine, conns[i])
			}
			if *mode == "coro" {
				wg.Go(func() { coroWorker(mine) })
				continue
			}
			wg.Go(func() { worker(mine, *mode == "epoll") })
		}
	default:
		check(fmt.Errorf("-mode must be poll, epoll, coro or goroutine, not %q", *mode))
	}
	time.Sleep(time.Duration(*secs) * time.Second)
	stop.Store(true)
	wg.Wait()
	for i, c := range conns {
		done[i] = c.done
	}
	var total int64
	for _, n := range done {
		total += n
	}
	fmt.Printf("transactions %d\ntps = %.1f\n", total, float64(total)/float64(*secs))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "pollfloor:", err)
		os.Exit(1)
	}
}

// msg appends a message of type t with body b.
func msg(p []byte, t byte, b ...[]byte) []byte {
	n := 4
	for _, x := range b {
		n += len(x)
	}
	p = binary.BigEndian.AppendUint32(append(p, t), uint32(n))
	for _, x := range b {
		p = append(p, x...)
	}
	return p
}

// setup sends the startup message and the Parse, each answered up to
// ReadyForQuery, on a blocking connection, reading into r.
func setup(rw io.ReadWriter, user string, r *reply) error {
	body := binary.BigEndian.AppendUint32(nil, 196608) // protocol 3.0
	body = append(body, "user\x00"+user+"\x00database\x00postgres\x00\x00"...)
	start := binary.BigEndian.AppendUint32(nil, uint32(len(body)+4))
	if _, err := rw.Write(append(start, body...)); err != nil {
		return err
	}
	if err := r.readAll(rw); err != nil {
		return err
	}
	p := msg(nil, 'P', []byte("s\x00"+query+"\x00"), []byte{0, 0})
	if _, err := rw.Write(msg(p, 'S')); err != nil {
		return err
	}
	return r.readAll(rw)
}

// bind appends one transaction's Bind + Execute + Sync with a random aid
// (allocating nothing when p has room).
func bind(p []byte, rng *rand.Rand) []byte {
	var digits [20]byte
	aid := strconv.AppendInt(digits[:0], 1+rng.Int64N(maxAid), 10)
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(aid)))
	p = msg(p, 'B', []byte("\x00s\x00"), []byte{0, 0, 0, 1}, n[:], aid, []byte{0, 0})
	p = msg(p, 'E', []byte{0, 0, 0, 0, 0})
	return msg(p, 'S')
}

// reply is a connection's reading state: the bytes received and not yet
// consumed, and whether this transaction's DataRow has come.
type reply struct {
	buf  []byte
	have int
	row  bool
}

// parse consumes the complete messages received; it reports whether
// ReadyForQuery came, and fails on an ErrorResponse.
func (r *reply) parse() (ready bool, err error) {
	off := 0
	for r.have-off >= 5 {
		n := int(binary.BigEndian.Uint32(r.buf[off+1:]))
		if r.have-off < 1+n {
			break
		}
		switch r.buf[off] {
		case 'E':
			return false, fmt.Errorf("server error: %q", r.buf[off+5:off+1+n])
		case 'D':
			r.row = true
		case 'Z':
			ready = true
		}
		off += 1 + n
		if ready {
			break
		}
	}
	r.have = copy(r.buf, r.buf[off:r.have])
	return ready, nil
}

// readAll reads from a blocking connection until ReadyForQuery.
func (r *reply) readAll(rd io.Reader) error {
	if r.buf == nil {
		r.buf = make([]byte, 65536)
	}
	for {
		n, err := rd.Read(r.buf[r.have:])
		if err != nil {
			return err
		}
		r.have += n
		if ready, err := r.parse(); ready || err != nil {
			return err
		}
	}
}

// loop is goroutine mode's client: one transaction after another until
// stop, blocking in Go's netpoller.
func loop(c io.ReadWriter, id uint64) int64 {
	rng := rand.New(rand.NewPCG(id, 40))
	r, out := reply{}, make([]byte, 0, 128)
	var n int64
	for !stop.Load() {
		out = bind(out[:0], rng)
		if n, err := c.Write(out); err != nil || n != len(out) {
			check(fmt.Errorf("write: %d of %d bytes, %v", n, len(out), err))
		}
		r.row = false
		check(r.readAll(c))
		if !r.row {
			check(errors.New("no DataRow"))
		}
		n++
	}
	return n
}

// conn is a poll-mode connection: a raw non-blocking socket the runtime
// never sees, and its state (always a query in flight, part of its reply
// perhaps read).
type conn struct {
	fd   int
	r    reply
	rng  *rand.Rand
	out  []byte
	done int64
}

// fdRW reads and writes a blocking descriptor (for setup).
type fdRW int

func (f fdRW) Read(p []byte) (int, error)  { return unix.Read(int(f), p) }
func (f fdRW) Write(p []byte) (int, error) { return unix.Write(int(f), p) }

func dialRaw(host string, port int, user string, id uint64) *conn {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	check(err)
	sa := &unix.SockaddrInet4{Port: port}
	copy(sa.Addr[:], net.ParseIP(host).To4())
	check(unix.Connect(fd, sa))
	check(unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1))
	c := &conn{fd: fd, rng: rand.New(rand.NewPCG(id, 40)), out: make([]byte, 0, 128)}
	check(setup(fdRW(fd), user, &c.r))
	check(unix.SetNonblock(fd, true))
	return c
}

// send writes the next transaction. The socket's send buffer is empty
// (the last reply has been read), so a ~60-byte write never comes short.
func (c *conn) send() {
	c.r.row = false
	c.out = bind(c.out[:0], c.rng)
	n, err := sys(unix.SYS_WRITE, c.fd, c.out)
	check(err)
	if n != len(c.out) {
		check(fmt.Errorf("short write %d of %d", n, len(c.out)))
	}
}

// readable reads what has come; at ReadyForQuery it counts the
// transaction and sends the next unless stopping. It reports whether the
// connection still has a query in flight.
func (c *conn) readable() bool {
	n, err := sys(unix.SYS_READ, c.fd, c.r.buf[c.r.have:])
	if err == unix.EAGAIN {
		return true
	}
	check(err)
	if n == 0 {
		check(errors.New("server closed the connection"))
	}
	c.r.have += n
	ready, err := c.r.parse()
	check(err)
	if !ready {
		return true
	}
	if !c.r.row {
		check(errors.New("no DataRow"))
	}
	c.done++
	if stop.Load() {
		return false
	}
	c.send()
	return true
}

// worker owns conns on its own OS thread: send every connection's first
// transaction, then wait for any of them with one ppoll (or epoll_wait),
// serve every ready one, and wait again, until none is in flight.
func worker(conns []*conn, epoll bool) {
	runtime.LockOSThread()
	fds := make([]unix.PollFd, len(conns))
	events := make([]unix.EpollEvent, len(conns))
	ep := -1
	if epoll {
		var err error
		ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		check(err)
	}
	for i, c := range conns {
		fds[i] = unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN}
		if epoll {
			check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, c.fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}))
		}
		c.send()
	}
	for inflight := len(conns); inflight > 0; {
		if epoll {
			n, err := waitEpoll(ep, events)
			if err == unix.EINTR {
				continue
			}
			check(err)
			for _, e := range events[:n] {
				if c := conns[e.Fd]; !c.readable() {
					check(unix.EpollCtl(ep, unix.EPOLL_CTL_DEL, c.fd, nil))
					inflight--
				}
			}
			continue
		}
		n, err := waitPoll(fds)
		if err == unix.EINTR {
			continue
		}
		check(err)
		for i := 0; n > 0 && i < len(fds); i++ {
			if fds[i].Revents == 0 {
				continue
			}
			n--
			if !conns[i].readable() {
				fds[i].Fd = -1 // ppoll skips negative descriptors
				inflight--
			}
			fds[i].Revents = 0
		}
	}
	for _, c := range conns {
		unix.Write(c.fd, msg(nil, 'X'))
		unix.Close(c.fd)
	}
}

// sys is the run's read(2) or write(2) of b on fd (non-blocking), and
// waitPoll and waitEpoll a worker's one blocking call, ppoll(fds, n, NULL,
// NULL) or epoll_pwait(ep, events, n, -1, NULL). With -raw=false they are
// x/sys/unix's calls, which tell the scheduler they are in a system call:
// then, all Ps being held by threads in system calls (a worker waiting,
// or a write(2) preempted by the backend it woke), sysmon takes a P back
// after 20-40 us and hands it off (starting a spinning M when none is
// idle), the thread takes one back on return, and sysmon keeps waking
// every 20 us. With -raw (the default) they are raw system calls that
// keep their P, as a thread that owns its work can; the runtime still
// preempts a worker (SIGURG, EINTR) when it must.
func sys(trap uintptr, fd int, b []byte) (int, error) {
	if !raw {
		if trap == unix.SYS_READ {
			return unix.Read(fd, b)
		}
		return unix.Write(fd, b)
	}
	return rawCall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
}

func waitPoll(fds []unix.PollFd) (int, error) {
	if !raw {
		return unix.Ppoll(fds, nil, nil)
	}
	return rawCall(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0)
}

func waitEpoll(ep int, events []unix.EpollEvent) (int, error) {
	if !raw {
		return unix.EpollWait(ep, events, -1)
	}
	return rawCall(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), ^uintptr(0))
}

func rawCall(trap, a0, a1, a2, a3 uintptr) (int, error) {
	for {
		r, _, e := unix.RawSyscall6(trap, a0, a1, a2, a3, 0, 0)
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
			continue
		}
		return 0, e
	}
}

// netRaw is goroutine mode's connection with -raw: read(2) and write(2)
// through sys on the non-blocking socket, the wait for readiness the
// netpoller's (syscall.RawConn), as txnbench's target/pg rawConn.
type netRaw struct {
	rc     syscall.RawConn
	buf    []byte
	n      int
	err    error
	rd, wr func(fd uintptr) bool // made once: a closure per call would allocate
}

func newNetRaw(c net.Conn) *netRaw {
	rc, err := c.(*net.TCPConn).SyscallConn()
	check(err)
	r := &netRaw{rc: rc}
	r.rd = func(fd uintptr) bool { return r.call(unix.SYS_READ, fd) }
	r.wr = func(fd uintptr) bool { return r.call(unix.SYS_WRITE, fd) }
	return r
}

// call reports false (wait for readiness) on EAGAIN.
func (r *netRaw) call(trap, fd uintptr) bool {
	r.n, r.err = sys(trap, int(fd), r.buf)
	return r.err != unix.EAGAIN
}

func (r *netRaw) Read(b []byte) (int, error) { return r.do(r.rc.Read, r.rd, b) }

func (r *netRaw) Write(b []byte) (int, error) { return r.do(r.rc.Write, r.wr, b) }

func (r *netRaw) do(wait func(func(uintptr) bool) error, f func(uintptr) bool, b []byte) (int, error) {
	r.buf = b
	if err := wait(f); err != nil {
		return 0, err
	}
	if r.err == nil && r.n == 0 {
		return 0, io.EOF
	}
	return r.n, r.err
}

// coroRW is coro mode's connection: the client's code blocks as in
// goroutine mode, but a read that finds nothing yields to its worker
// (iter.Pull's coroutine switch, on the worker's own thread).
type coroRW struct {
	fd    int
	yield func(struct{}) bool
}

func (c *coroRW) Read(b []byte) (int, error) {
	for {
		n, err := sys(unix.SYS_READ, c.fd, b)
		if err != unix.EAGAIN {
			if err == nil && n == 0 {
				return 0, io.EOF
			}
			return n, err
		}
		c.yield(struct{}{})
	}
}

func (c *coroRW) Write(b []byte) (int, error) { return sys(unix.SYS_WRITE, c.fd, b) }

// coroWorker runs each of its connections' loop as a coroutine, resuming
// the ones epoll_pwait says are readable.
func coroWorker(conns []*conn) {
	runtime.LockOSThread()
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	check(err)
	events := make([]unix.EpollEvent, len(conns))
	nexts := make([]func() (struct{}, bool), len(conns))
	live := 0
	for i, c := range conns {
		check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, c.fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}))
		next, _ := iter.Pull(func(yield func(struct{}) bool) {
			c.done = loop(&coroRW{fd: c.fd, yield: yield}, uint64(i))
		})
		nexts[i] = next
		if _, ok := next(); ok {
			live++
		}
	}
	for live > 0 {
		n, err := waitEpoll(ep, events)
		if err == unix.EINTR {
			continue
		}
		check(err)
		for _, e := range events[:n] {
			if _, ok := nexts[e.Fd](); !ok {
				check(unix.EpollCtl(ep, unix.EPOLL_CTL_DEL, conns[e.Fd].fd, nil))
				live--
			}
		}
	}
	for _, c := range conns {
		unix.Write(c.fd, msg(nil, 'X'))
		unix.Close(c.fd)
	}
}
