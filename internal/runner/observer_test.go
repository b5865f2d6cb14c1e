package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// TestObserversSeeTheRun: every observer sees the window open, its
// intervals, the window end and the run stop, once each and in that order
// (the window's last interval closes with it), and each event reaches the
// observers in the order of the list.
func TestObserversSeeTheRun(t *testing.T) {
	w := &counterWorkload{pause: 5 * time.Millisecond}
	cfg := baseConfig()
	cfg.Iterations = 60
	cfg.Progress = 20 * time.Millisecond
	var events []string // the runner calls observers from one goroutine
	observer := func(name string) Observer {
		add := func(e string) { events = append(events, name+" "+e) }
		return Funcs{
			OnStart:     func() { add("start") },
			OnTick:      func(iv result.Interval) { add("tick") },
			OnWindowEnd: func() { add("window-end") },
			OnStop:      func() { add("stop") },
		}
	}
	cfg.Observers = []Observer{observer("a"), observer("b")}
	out := mustRun(t, cfg, w)
	if len(out.Intervals) == 0 {
		t.Fatal("no intervals")
	}
	var want []string
	step := func(e string) { want = append(want, "a "+e, "b "+e) }
	step("start")
	for range out.Intervals[:len(out.Intervals)-1] {
		step("tick")
	}
	step("window-end")
	step("tick")
	step("stop")
	if got := strings.Join(events, ", "); got != strings.Join(want, ", ") {
		t.Errorf("events:\n %s\nwant\n %s", got, strings.Join(want, ", "))
	}
}
