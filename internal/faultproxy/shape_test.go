package faultproxy

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

func startShaped(t *testing.T, backend string, s Shape) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := StartShaped(ln, backend, s)
	t.Cleanup(func() { p.Close() })
	return p
}

func TestParseShape(t *testing.T) {
	for in, want := range map[string]Shape{
		"rtt=2ms": {RTT: 2 * time.Millisecond},
		"rtt=0ms": {},
		"rtt=2ms,jitter=0.2ms,rate=1gbit,loss=0.1%": {RTT: 2 * time.Millisecond, Jitter: 200 * time.Microsecond, Rate: 1e9, Loss: 0.001},
		" rtt=10ms , rate=100mbit":                  {RTT: 10 * time.Millisecond, Rate: 1e8},
		"rtt=1ms+loss=1%":                           {RTT: time.Millisecond, Loss: 0.01},
	} {
		got, err := ParseShape(in)
		if err != nil || got != want {
			t.Errorf("ParseShape(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParseShape(got.String()); err != nil || again != got {
			t.Errorf("ParseShape(%q.String() = %q) = %+v, %v", in, got.String(), again, err)
		}
	}
	for in, want := range map[string]string{
		"":                     "no rtt",
		"2ms":                  "key=value",
		"jitter=1ms":           "no rtt",
		"rtt=-1ms":             "0 to 1m",
		"rtt=2h":               "0 to 1m",
		"rtt=abc":              "rtt=abc",
		"rtt=2ms,rtt=3ms":      "twice",
		"rtt=2ms,jitter=2ms":   "more than half",
		"rtt=2ms,rate=fast":    "bandwidth",
		"rtt=2ms,rate=10":      "bandwidth",
		"rtt=2ms,rate=0gbit":   "bandwidth",
		"rtt=2ms,loss=1":       "percentage",
		"rtt=2ms,loss=100%":    "percentage",
		"rtt=2ms,delay=1ms":    "unknown",
		"rtt=2ms,loss=NaN%":    "percentage",
		"rtt=2ms,rate=NaNmbit": "bandwidth",
	} {
		if _, err := ParseShape(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShape(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}

// TestShapedRoundTrip: the fastest of many round trips through a shaped
// proxy takes about rtt (a busy machine only adds to some).
func TestShapedRoundTrip(t *testing.T) {
	for _, rtt := range []time.Duration{2 * time.Millisecond, 10 * time.Millisecond} {
		p := startShaped(t, echo(t), Shape{RTT: rtt})
		c, r := dial(t, p)
		var trips []time.Duration
		for range 30 {
			t0 := time.Now()
			if err := roundTrip(c, r, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			trips = append(trips, time.Since(t0))
		}
		c.Close()
		fastest := slices.Min(trips)
		// Links wake early by the proxy's least lateness (link.adjust), so
		// the fastest may come a little before rtt, never much.
		if lo, hi := rtt*9/10, rtt+rtt/2+time.Millisecond; fastest < lo || fastest > hi {
			t.Errorf("rtt=%s: fastest round trip %s, want %s to %s", rtt, fastest, lo, hi)
		}
	}
}

// TestShapedStream: a stream passes whole and in order with jitter and
// loss, the end of it (the server's last bytes before it closes) too, and
// a rate makes it take its time.
func TestShapedStream(t *testing.T) {
	data := make([]byte, 1<<20)
	rand.Read(data)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { c.Write(data); c.Close() }() // send it all, then hang up
		}
	}()
	p := startShaped(t, ln.Addr().String(), Shape{RTT: 2 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.01, Rate: 80e6})
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	t0 := time.Now()
	got, err := io.ReadAll(c)
	took := time.Since(t0)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %d of %d bytes (equal: %v), %v", len(got), len(data), bytes.Equal(got, data), err)
	}
	// 1 MiB at 80 Mbit/s is 105 ms on the wire.
	if took < 100*time.Millisecond {
		t.Errorf("1 MiB at rate=80mbit took %s, want at least 100ms", took)
	}
}
