package faultproxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// echo serves connections that send each line back.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := Start(ln, echo(t))
	t.Cleanup(func() { p.Close() })
	return p
}

// roundTrip sends a line on c and reads it back, within deadline.
func roundTrip(c net.Conn, r *bufio.Reader, deadline time.Duration) error {
	c.SetDeadline(time.Now().Add(deadline))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err == nil && line != "ping\n" {
		err = errors.New("echo garbled: " + line)
	}
	return err
}

func dial(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func TestProxyPassesAndDelays(t *testing.T) {
	p := start(t)
	c, r := dial(t, p)
	if err := roundTrip(c, r, time.Minute); err != nil {
		t.Fatal(err)
	}
	p.SetLatency(100 * time.Millisecond)
	began := time.Now()
	if err := roundTrip(c, r, time.Minute); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < 100*time.Millisecond {
		t.Errorf("a round trip with 100ms added took %s", took)
	}
	p.SetLatency(0)
}

// TestBlackholeHoldsThenDelivers: nothing passes while the black hole is
// on, not even a new connection's first bytes; once it lifts, what was
// sent arrives, as TCP would retransmit it.
func TestBlackholeHoldsThenDelivers(t *testing.T) {
	p := start(t)
	c, r := dial(t, p)
	lift := p.Blackhole()
	if err := roundTrip(c, r, 200*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a round trip in the black hole: %v", err)
	}
	c2, r2 := dial(t, p)
	c2.SetDeadline(time.Now().Add(200 * time.Millisecond))
	c2.Write([]byte("ping\n"))
	if _, err := r2.ReadString('\n'); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a new connection in the black hole: %v", err)
	}
	lift()
	for _, cr := range []struct {
		c net.Conn
		r *bufio.Reader
	}{{c, r}, {c2, r2}} {
		cr.c.SetDeadline(time.Now().Add(time.Minute))
		if line, err := cr.r.ReadString('\n'); err != nil || line != "ping\n" {
			t.Fatalf("after the black hole: %q, %v", line, err)
		}
	}
}

func TestResetEndsConnections(t *testing.T) {
	p := start(t)
	c, r := dial(t, p)
	if err := roundTrip(c, r, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := p.Reset(); n != 1 {
		t.Errorf("reset %d connections, want 1", n)
	}
	if err := roundTrip(c, r, time.Minute); err == nil {
		t.Error("a reset connection still works")
	}
	c2, r2 := dial(t, p)
	if err := roundTrip(c2, r2, time.Minute); err != nil {
		t.Errorf("a new connection after the reset: %v", err)
	}
}
