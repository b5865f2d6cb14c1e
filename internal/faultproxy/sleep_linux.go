package faultproxy

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d in the kernel (nanosleep), blocking its thread,
// accurate to microseconds where a Go timer is to milliseconds.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
