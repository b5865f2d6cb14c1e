//go:build unix

package history

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRecord is the record path of one transaction of four micro-ops
// (two appends, a read of a 16-value list, a register read) into a Log
// sized for the run: bench/history.sh reports its ns/op (and the CPU per
// op, which a loaded machine does not inflate) and allocs/op.
func BenchmarkRecord(b *testing.B) {
	l := NewLog(0, b.N, 4, 16)
	read := make([]int64, 16)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for i := 0; i < b.N; i++ {
		t := int64(i)
		l.Begin(t)
		l.Write(1, t)
		l.Write(2, t)
		l.ReadList(1, read)
		l.ReadValue(3, t, true)
		l.End(t+1, OK)
	}
	b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU (user and system, every thread, the collector's
// too) this process has used: on a loaded machine the wall time says more
// about the other processes.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCheck checks histories of a simulated snapshot-isolation store
// (16 clients, 8 keys at a time, retired every 100 txns, up to 4 micro-ops
// a txn) of 100,000 and 1,000,000 txns, real-time edges on; beside the
// wall time it reports the check's CPU, the history's size and what the
// check allocated.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, model := range []Model{ListAppend, Register} {
			b.Run(fmt.Sprintf("%s/%d", model, n), func(b *testing.B) {
				h := simulate(simConfig{model: model, txns: n, keys: 8, txnLen: 4, concurrency: 16, rotate: 100, seed: 1})
				histBytes := 32*len(h.Txns) + 32*len(h.Ops) + 8*len(h.Vals)
				var before, after runtime.MemStats
				b.ReportAllocs()
				b.ResetTimer()
				var res Result
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					runtime.GC()
					runtime.ReadMemStats(&before)
					c0 := processCPU()
					res = Check(h, Options{Realtime: true})
					cpu += processCPU() - c0
					runtime.ReadMemStats(&after)
				}
				b.ReportMetric(cpu.Seconds()/float64(b.N), "check-cpu-s")
				b.ReportMetric(float64(histBytes)/1e6, "history-MB")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/1e6, "check-alloc-MB")
				b.ReportMetric(float64(len(res.Anomalies)), "classes")
			})
		}
	}
}
