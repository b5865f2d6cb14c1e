//go:build !linux

package pg

import "net"

// wrapRaw: the raw system call path is Linux only.
func wrapRaw(c net.Conn) net.Conn { return c }
