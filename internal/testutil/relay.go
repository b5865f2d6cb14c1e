package testutil

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// CountingRelay relays each TCP connection accepted on an address of its
// own to server (host:port) until the test ends, and counts them: the
// sessions a client opened, as the server sees their connections.
func CountingRelay(t testing.TB, server string) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln := Listen(t)
	accepted = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	return ln.Addr().String(), accepted
}
