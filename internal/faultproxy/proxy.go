package faultproxy

import (
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards each connection accepted on its listener to the backend
// address. Its methods are safe for concurrent use.
type Proxy struct {
	ln      net.Listener
	backend string
	delay   atomic.Int64 // added to each request, ns
	shape   *Shape       // nil: traffic passes as it comes
	early   atomic.Int64 // how early shaped links wake, ns (link.adjust)
	cpu     cpuMeter     // a shaped proxy's goroutines' CPU
	held    holds        // how long a shaped proxy held its chunks

	mu     sync.Mutex
	conns  map[*pair]struct{}
	hole   chan struct{} // nil: traffic flows; else closed when the black hole lifts
	closed bool
	wg     sync.WaitGroup
}

// pair is one client connection and its backend connection.
type pair struct {
	client net.Conn
	mu     sync.Mutex
	server net.Conn // nil until dialled
	closed bool
	done   chan struct{}
}

// setServer links the backend connection; false when the pair was closed
// meanwhile (the caller closes s).
func (p *pair) setServer(s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.server = s
	return true
}

func (p *pair) close(reset bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		for _, c := range []net.Conn{p.client, p.server} {
			if c == nil {
				continue
			}
			if tc, ok := c.(*net.TCPConn); ok && reset {
				_ = tc.SetLinger(0) // close with RST
			}
			_ = c.Close()
		}
		close(p.done)
	}
}

// Start proxies connections accepted on ln to backend (host:port).
func Start(ln net.Listener, backend string) *Proxy {
	return startProxy(ln, backend, nil)
}

// StartShaped proxies connections accepted on ln to backend (host:port)
// through a network of shape s: each direction of a connection is a FIFO
// of what was read, each chunk due half a round trip later (with its
// jitter, its turn at the rate, a retransmission timeout if lost), sent by
// one goroutine with one timer, every chunk due at once in one write. A
// connection's first request waits a round trip more, for the TCP
// handshake a network would have had.
func StartShaped(ln net.Listener, backend string, s Shape) *Proxy {
	return startProxy(ln, backend, &s)
}

func startProxy(ln net.Listener, backend string, s *Shape) *Proxy {
	p := &Proxy{ln: ln, backend: backend, shape: s, conns: map[*pair]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p
}

// Addr is where clients connect: host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // out of descriptors: try again
			continue
		}
		pr := &pair{client: c, done: make(chan struct{})}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			_ = c.Close()
			return
		}
		p.conns[pr] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(pr)
	}
}

func (p *Proxy) serve(pr *pair) {
	defer p.wg.Done()
	if p.shape != nil {
		defer p.cpu.track()()
	}
	defer func() {
		pr.close(false)
		p.mu.Lock()
		delete(p.conns, pr)
		p.mu.Unlock()
	}()
	if !p.pass(pr) { // a black hole: the connection attempt hangs too
		return
	}
	s, err := net.Dial("tcp", p.backend)
	if err != nil {
		return // the client sees its connection closed, as when refused
	}
	if !pr.setServer(s) { // reset while dialling
		_ = s.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if p.shape != nil {
			defer p.cpu.track()()
		}
		p.copy(pr, s, pr.client, true)
	}()
	p.copy(pr, pr.client, s, false)
	wg.Wait()
}

// copy forwards src to dst until either side ends, holding data in a
// black hole and delaying requests (toServer) by the added latency. On a
// shaped proxy it queues what it reads on the direction's link, which
// writes it when due and ends the connection after the last of it.
func (p *Proxy) copy(pr *pair, dst, src net.Conn, toServer bool) {
	if p.shape != nil {
		p.copyShaped(pr, dst, src, toServer)
		return
	}
	defer pr.close(false)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.forward(pr, toServer) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) copyShaped(pr *pair, dst, src net.Conn, toServer bool) {
	first := time.Duration(0)
	if toServer {
		first = p.shape.RTT
	}
	l := newLink(pr, dst, *p.shape, rand.Uint64(), first, &p.early, &p.held)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer p.cpu.track()()
		l.send()
	}()
	for {
		buf := bufPool.Get().(*[]byte)
		n, err := src.Read(*buf)
		if n > 0 {
			if !p.forward(pr, toServer) || !l.put(buf, n, false) {
				bufPool.Put(buf)
				return
			}
		} else {
			bufPool.Put(buf)
		}
		if err != nil {
			l.put(nil, 0, true)
			return
		}
	}
}

// forward waits as the faults say before data read is passed on: through
// a black hole, and the added latency for requests; false when the
// connection ended meanwhile.
func (p *Proxy) forward(pr *pair, toServer bool) bool {
	if !p.pass(pr) {
		return false
	}
	if d := time.Duration(p.delay.Load()); toServer && d > 0 {
		t := time.NewTimer(d)
		select {
		case <-pr.done:
			t.Stop()
			return false
		case <-t.C:
		}
	}
	return true
}

// pass waits while a black hole holds traffic; false when the connection
// ended meanwhile.
func (p *Proxy) pass(pr *pair) bool {
	p.mu.Lock()
	hole := p.hole
	p.mu.Unlock()
	if hole == nil {
		return true
	}
	select {
	case <-hole:
		return true
	case <-pr.done:
		return false
	}
}

// CPU is the CPU time a shaped proxy's goroutines have used since it
// started (its connections' readers and writers, each on an OS thread of
// its own while it lives, whose CPU clock counts it); 0 for an unshaped
// proxy, or where threads' CPU clocks cannot be read (not Linux).
func (p *Proxy) CPU() time.Duration {
	if p == nil {
		return 0
	}
	return p.cpu.total()
}

// Held is what a shaped proxy has held since it started (zero for an
// unshaped proxy).
func (p *Proxy) Held() Held {
	if p == nil {
		return Held{}
	}
	return Held{Chunks: p.held.chunks.Load(), Total: time.Duration(p.held.ns.Load())}
}

// SetLatency adds d to every request on its way to the backend (0: none).
func (p *Proxy) SetLatency(d time.Duration) { p.delay.Store(int64(d)) }

// Blackhole holds all traffic, new connections included, until lift is
// called.
func (p *Proxy) Blackhole() (lift func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hole == nil {
		p.hole = make(chan struct{})
	}
	hole := p.hole
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			if p.hole == hole {
				p.hole = nil
			}
			p.mu.Unlock()
			close(hole)
		})
	}
}

// Reset resets every connection open now (TCP RST to both sides) and
// returns how many there were; later ones are served as usual.
func (p *Proxy) Reset() int {
	p.mu.Lock()
	prs := make([]*pair, 0, len(p.conns))
	for pr := range p.conns {
		prs = append(prs, pr)
	}
	p.mu.Unlock()
	for _, pr := range prs {
		pr.close(true)
	}
	return len(prs)
}

// Close stops accepting, closes every connection and waits for them.
func (p *Proxy) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	prs := make([]*pair, 0, len(p.conns))
	for pr := range p.conns {
		prs = append(prs, pr)
	}
	p.mu.Unlock()
	err := p.ln.Close()
	for _, pr := range prs {
		pr.close(false)
	}
	p.wg.Wait()
	return err
}
