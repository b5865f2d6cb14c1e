//go:build !linux

package faultproxy

import "time"

// preciseSleep is a Go timer's sleep where syscall has no nanosleep
// (darwin): the shapes' small delays are coarser there.
func preciseSleep(d time.Duration) { time.Sleep(d) }
