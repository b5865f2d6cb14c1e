package faultproxy

import (
	"io"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestShapedProxyCPU: a shaped proxy counts the CPU its goroutines use,
// also while a connection is still open (a session that lasts the whole
// run), and never more than the whole process used meanwhile. Fixed work:
// 2,000 round trips through it.
func TestShapedProxyCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("threads' CPU clocks are read on Linux only")
	}
	p := startShaped(t, echo(t), Shape{})
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := processCPU(t)
	msg, back := make([]byte, 64), make([]byte, 64)
	for range 2000 {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, back); err != nil {
			t.Fatal(err)
		}
	}
	open := p.CPU() // the connection is open: its goroutines live
	used := processCPU(t) - before
	t.Logf("proxy CPU %v of the process's %v for 2,000 round trips", open, used)
	if open <= 0 {
		t.Fatalf("CPU() = %v with a connection open after 2,000 round trips, want its goroutines' CPU", open)
	}
	if open > used+10*time.Millisecond { // the process's figure is in ticks of the scheduler's accounting
		t.Errorf("CPU() = %v, more than the whole process used meanwhile (%v)", open, used)
	}
	c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for p.CPU() < open && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if closed := p.CPU(); closed < open {
		t.Errorf("CPU() = %v after the connection closed, less than %v while it was open", closed, open)
	}
}

// processCPU is the CPU time this process used so far.
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
