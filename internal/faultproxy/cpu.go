package faultproxy

import (
	"runtime"
	"sync"
	"time"
)

// cpuMeter adds up the CPU time of a shaped proxy's goroutines: each runs
// on an OS thread of its own while it lives (runtime.LockOSThread), whose
// CPU clock says what it used. The proxy runs inside txnbench, whose own
// CPU figure (getrusage) then includes it: this is how much to take off.
type cpuMeter struct {
	mu   sync.Mutex
	done time.Duration         // the goroutines that ended
	live map[int]time.Duration // by thread id: its CPU clock when its goroutine began
}

// track runs the calling goroutine on a thread of its own from now on,
// counting the thread's CPU until the returned function is called (as the
// goroutine ends).
func (m *cpuMeter) track() (untrack func()) {
	runtime.LockOSThread()
	tid := gettid()
	start, ok := threadCPU(tid)
	if !ok {
		return runtime.UnlockOSThread
	}
	m.mu.Lock()
	if m.live == nil {
		m.live = map[int]time.Duration{}
	}
	m.live[tid] = start
	m.mu.Unlock()
	return func() {
		end, _ := threadCPU(tid)
		m.mu.Lock()
		delete(m.live, tid)
		m.done += max(end-start, 0)
		m.mu.Unlock()
		runtime.UnlockOSThread()
	}
}

// total is the CPU time the tracked goroutines used so far.
func (m *cpuMeter) total() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.done
	for tid, start := range m.live {
		if now, ok := threadCPU(tid); ok {
			t += max(now-start, 0)
		}
	}
	return t
}
