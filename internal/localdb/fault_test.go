package localdb

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

// TestKillThenRestart: Kill leaves the server down, its backends gone
// too, for SIGKILL and an immediate shutdown alike; Restart brings it
// back on the same port.
func TestKillThenRestart(t *testing.T) {
	needBin(t)
	c := start(t, Options{})
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGQUIT} {
		pid, kids := c.PID(), childrenOf(c.PID())
		if len(kids) == 0 {
			t.Fatalf("the postmaster has no children to check")
		}
		if err := c.Kill(sig); err != nil {
			t.Fatalf("Kill(%v): %v", sig, err)
		}
		if c.PID() != 0 {
			t.Errorf("PID() = %d after Kill, want 0 (down)", c.PID())
		}
		assertDead(t, pid)
		for _, k := range kids {
			if tempdir.Alive(k.pid, k.start) {
				t.Errorf("backend %d outlived Kill(%v)", k.pid, sig)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := c.Restart(ctx)
		cancel()
		if err != nil {
			t.Fatalf("Restart after Kill(%v): %v", sig, err)
		}
		assertReady(t, c)
	}
}

// TestPause: a paused server accepts a connection (the kernel does) but
// answers nothing; resumed, it answers.
func TestPause(t *testing.T) {
	needBin(t)
	c := start(t, Options{})
	resume, err := c.Pause()
	if err != nil {
		t.Fatal(err)
	}
	defer resume()
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(c.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// an SSLRequest: the server answers one byte, N or S
	conn.Write([]byte{0, 0, 0, 8, 4, 210, 22, 47})
	conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	b := make([]byte, 1)
	if n, err := conn.Read(b); n != 0 || err == nil {
		t.Fatalf("a paused server answered %q (%v)", b[:n], err)
	}
	resume()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	if n, err := conn.Read(b); n != 1 || (b[0] != 'N' && b[0] != 'S') {
		t.Fatalf("the resumed server answered %q, %v", b[:n], err)
	}
}

func TestListen(t *testing.T) {
	l, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if port < portMin || port > portMax {
		t.Errorf("port %d outside %d-%d", port, portMin, portMax)
	}
}
