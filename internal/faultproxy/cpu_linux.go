package faultproxy

import (
	"syscall"
	"time"
	"unsafe"
)

func gettid() int { return syscall.Gettid() }

// threadCPU reads the CPU clock of thread tid of this process (Linux's
// per-thread CPU-time clock: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)).
func threadCPU(tid int) (time.Duration, bool) {
	clock := int64(^tid)<<3 | 6 // CPUCLOCK_SCHED (2) | CPUCLOCK_PERTHREAD_MASK (4)
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(clock), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
