package job

import (
	"os"
	"os/exec"
	"testing"
)

// TestRunQueueUse: the run queue over a span is the change of the
// processes read at both ends; one that ended, or whose counters went
// back (a restart), is left out, and none left is nil.
func TestRunQueueUse(t *testing.T) {
	st, ok := processSched(os.Getpid())
	if !ok || st.cpu <= 0 {
		t.Fatalf("this process's schedstat: %+v %v, want some CPU", st, ok)
	}
	from := map[int]schedTimes{1: {cpu: 1, wait: 2}, 2: {cpu: 5, wait: 5}, 3: {cpu: 1, wait: 1}}
	upto := map[int]schedTimes{1: {cpu: 1.5, wait: 3}, 2: {cpu: 0.1, wait: 0.1}} // 2 restarted, 3 ended
	rq := runQueueUse(from, upto)
	if rq == nil || rq.CPUS != 0.5 || rq.WaitS != 1 {
		t.Errorf("run queue %+v, want cpu 0.5 s and wait 1 s (process 1 only)", rq)
	}
	if rq := runQueueUse(map[int]schedTimes{3: {1, 1}}, upto); rq != nil {
		t.Errorf("no process at both ends: %+v, want nil", rq)
	}
}

// TestProcessSched: this process's threads add up to CPU it has used; a
// process that is gone has no reading.
func TestProcessSched(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc/PID/task here")
	}
	if st, ok := processSched(os.Getpid()); !ok || st.cpu <= 0 {
		t.Errorf("this process: %+v, %v; want its CPU", st, ok)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if st, ok := processSched(cmd.Process.Pid); ok {
		t.Errorf("a reaped process: %+v, want no reading", st)
	}
}
