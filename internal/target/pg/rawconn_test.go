package pg

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// tcpPair is both ends of a new loopback TCP connection: the dialled one
// (for wrapRaw) and the accepted one, closed when the test ends.
func tcpPair(t *testing.T) (dialled, accepted net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			srv <- nil
			return
		}
		srv <- c
	}()
	d, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-srv
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { s.Close() })
	return d, s
}

// TestRawConn: data both ways (larger than a socket buffer, so writes
// wait for the poller), EOF, and a Read blocked on an idle socket
// interrupted by a deadline and by Close.
func TestRawConn(t *testing.T) {
	d, s := tcpPair(t)
	c := wrapRaw(d)
	if _, ok := c.(*rawConn); !ok {
		t.Fatalf("a TCP conn is not wrapped: %T", c)
	}

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	echoed := make(chan []byte, 1)
	go func() {
		b := make([]byte, len(big))
		io.ReadFull(s, b)
		s.Write(b)
		echoed <- b
	}()
	if n, err := c.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	got := make([]byte, len(big))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("echo: %v, equal %v", err, bytes.Equal(got, big))
	}
	<-echoed

	// A deadline interrupts a waiting Read with a timeout error.
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := c.Read(got)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})

	// Close interrupts a waiting Read.
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(got)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not interrupt Read")
	}

	// The peer closing gives EOF.
	d2, s2 := tcpPair(t)
	s2.Close()
	c2 := wrapRaw(d2)
	defer c2.Close()
	if _, err := c2.Read(got); err != io.EOF {
		t.Fatalf("Read after the peer closed: %v, want io.EOF", err)
	}
}

// TestRawConnConcurrentReads: two goroutines read one connection at once,
// as pgx does when Close starts its background reader beside a query's
// Read. Each Read fills its own buffer; before, the second Read's buffer
// replaced the first's while the first waited, so the first read into
// the second's buffer and the second indexed a nil one (a panic in
// TestHangAtWindowEnd under load).
func TestRawConnConcurrentReads(t *testing.T) {
	d, s := tcpPair(t)
	c := wrapRaw(d)
	defer c.Close()

	const readers = 8
	type got struct {
		buf []byte
		n   int
		err error
	}
	results := make(chan got, readers)
	for range readers {
		go func() {
			b := make([]byte, 1) // one byte each: every reader gets one write
			n, err := c.Read(b)
			results <- got{b, n, err}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the readers queue on the idle socket
	for i := range readers {
		if _, err := s.Write([]byte{byte('a' + i)}); err != nil {
			t.Fatal(err)
		}
		r := <-results // one reader wakes per byte
		if r.err != nil || r.n != 1 || r.buf[0] < 'a' || r.buf[0] >= 'a'+readers {
			t.Fatalf("reader %d: n %d, err %v, its buffer %q: data went to another reader's buffer", i, r.n, r.err, r.buf)
		}
	}
}

// TestAnswerWaitInterrupted: the script's reader of answers waiting for
// an answer that does not come (more on an idle socket: the wait any
// later way of waiting, in the kernel or by a worker, must keep) is
// interrupted by a read deadline and by Close, and keeps the error for
// pgconn's next Read. It runs in a child process with
// GODEBUG=asyncpreemptoff=1: otherwise the runtime's preemption signals
// interrupt a wait in the kernel that nothing else would end (issue 40,
// round 6: such a wait passed here, and hung the child).
func TestAnswerWaitInterrupted(t *testing.T) {
	if os.Getenv("TXNBENCH_ANSWER_WAIT_CHILD") == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAnswerWaitInterrupted$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "TXNBENCH_ANSWER_WAIT_CHILD=1", "GODEBUG=asyncpreemptoff=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestAnswerWaitInterrupted/close")) {
			t.Fatalf("the child (asyncpreemptoff=1): %v (killed after 2 minutes: a wait neither a deadline nor Close ends)\n%s", err, out)
		}
		return
	}
	for _, stop := range []string{"deadline", "close"} {
		t.Run(stop, func(t *testing.T) {
			d, _ := tcpPair(t)
			c := wrapRaw(d).(*rawConn)
			defer c.Close()
			in := c.hold()
			if in == nil {
				t.Fatal("hold: nil on an idle connection")
			}
			in.room()
			done := make(chan bool, 1)
			go func() { done <- c.more() }()
			select {
			case <-done:
				t.Fatal("more returned before anything was sent or stopped")
			case <-time.After(50 * time.Millisecond):
			}
			want := os.ErrDeadlineExceeded
			if stop == "deadline" {
				c.SetReadDeadline(time.Now())
			} else {
				want = net.ErrClosed
				c.Close()
			}
			if ok := <-done; ok || !errors.Is(in.err, want) {
				t.Fatalf("more: %v, kept error %v, want false and %v", ok, in.err, want)
			}
			c.release()
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, want) {
				t.Fatalf("pgconn's Read after it: %v, want the kept %v", err, want)
			}
		})
	}
}

// TestQuietBesideABlockedRead: a session whose socket a reader waits on
// (pgx's background reader, started by a slow write, stays in Read on an
// idle session until bytes come) is not quiet, and quiet says so at once.
// It took the read lock the reader holds and waited for it: the kept
// probe session's Connect hung for ten minutes in CI (e2e/shards, an
// idle session on an idle machine).
func TestQuietBesideABlockedRead(t *testing.T) {
	d, s := tcpPair(t)
	c := wrapRaw(d).(*rawConn)
	defer c.Close()
	read := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		read <- err
	}()
	for c.rmu.TryLock() { // until the reader holds the lock
		c.rmu.Unlock()
		time.Sleep(time.Millisecond)
	}
	answer := make(chan bool, 1)
	go func() { answer <- c.quiet() }()
	select {
	case q := <-answer:
		if q {
			t.Error("quiet with a reader waiting on the socket, want not")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("quiet waited for the blocked reader")
	}
	if _, err := s.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if !c.quiet() {
		t.Error("not quiet once the reader took its byte, with nothing unread")
	}
}
