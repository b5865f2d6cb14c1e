package job

import (
	"os"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// schedTimes is a process's time on a core and waiting in a run queue,
// in s, over all its threads so far.
type schedTimes struct{ cpu, wait float64 }

// runQueueNow is schedTimes of every process of the run: txnbench's own
// and those of the parts it started (the server's tree, each PgBouncer,
// HAProxy), by pid.
func (d *Database) runQueueNow() map[int]schedTimes {
	pids := []int{os.Getpid()}
	if d != nil {
		if d.server != nil {
			if pid := d.server.PID(); pid > 0 {
				pids = append(append(pids, pid), children(pid)...)
			}
		}
		pids = append(pids, d.poolerPIDs()...)
		if p := d.Proxy(); p != nil {
			pids = append(pids, p.PID())
		}
	}
	out := make(map[int]schedTimes, len(pids))
	for _, pid := range pids {
		if st, ok := processSched(pid); ok {
			out[pid] = st
		}
	}
	return out
}

// processSched is pid's schedTimes, the sum of its threads'
// /proc/PID/task/TID/schedstat (on-CPU ns, run-queue wait ns, slices).
func processSched(pid int) (schedTimes, bool) {
	// One listing of the task directory, not a Glob of task/*/schedstat
	// (experiment e2 of BENCHMARKS' "Issue 40, round 5": 1.1 M instructions
	// of a pgbench -t 1's start-up).
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tids, _ := os.ReadDir(dir)
	var st schedTimes
	for _, tid := range tids {
		b, err := os.ReadFile(dir + tid.Name() + "/schedstat")
		fs := strings.Fields(string(b))
		if err != nil || len(fs) < 2 {
			continue
		}
		run, err1 := strconv.ParseFloat(fs[0], 64)
		wait, err2 := strconv.ParseFloat(fs[1], 64)
		if err1 == nil && err2 == nil {
			st.cpu += run / 1e9
			st.wait += wait / 1e9
		}
	}
	return st, len(tids) > 0
}

// runQueueUse is the run queue's account between two readings: the
// processes in both (a process that ended or restarted meanwhile, or
// lost threads, is left out); nil when none were.
func runQueueUse(from, upto map[int]schedTimes) *result.RunQueue {
	var rq result.RunQueue
	for pid, a := range from {
		b, ok := upto[pid]
		if !ok || b.cpu < a.cpu || b.wait < a.wait {
			continue
		}
		rq.CPUS += b.cpu - a.cpu
		rq.WaitS += b.wait - a.wait
	}
	if rq.CPUS <= 0 {
		return nil
	}
	return &rq
}
