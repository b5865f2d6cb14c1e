package runner

import (
	"runtime/metrics"
	"syscall"
	"time"
)

// CPUUsage is CPU time used by this process, its peak memory, and what it
// allocated.
type CPUUsage struct {
	User, Sys  time.Duration
	MaxRSSKB   int64  // peak resident set size, whole process lifetime
	AllocBytes uint64 // heap bytes allocated
}

// Total is user plus system time.
func (u CPUUsage) Total() time.Duration { return u.User + u.Sys }

func readCPU() CPUUsage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return CPUUsage{}
	}
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(allocs)
	return CPUUsage{
		User:       time.Duration(ru.Utime.Nano()),
		Sys:        time.Duration(ru.Stime.Nano()),
		MaxRSSKB:   ru.Maxrss,
		AllocBytes: allocs[0].Value.Uint64(),
	}
}

// Sub is the CPU used since u0; the peak memory is u's.
func (u CPUUsage) Sub(u0 CPUUsage) CPUUsage {
	return CPUUsage{User: u.User - u0.User, Sys: u.Sys - u0.Sys, MaxRSSKB: u.MaxRSSKB, AllocBytes: u.AllocBytes - u0.AllocBytes}
}
