package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// fakeClock is a Clock that moves only when advanced.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

// fakeTimer is an After (period 0) or a ticker of a fakeClock.
type fakeTimer struct {
	at     time.Time
	period time.Duration
	c      chan time.Time
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) add(d, period time.Duration) *fakeTimer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{at: f.now.Add(d), period: period, c: make(chan time.Time, 1)}
	f.timers = append(f.timers, t)
	return t
}

func (f *fakeClock) After(d time.Duration) <-chan time.Time { return f.add(d, 0).c }

func (f *fakeClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := f.add(d, d)
	return t.c, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, u := range f.timers {
			if u == t {
				f.timers = append(f.timers[:i], f.timers[i+1:]...)
				return
			}
		}
	}
}

// pending is how many timers and tickers wait on the clock.
func (f *fakeClock) pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// advance moves the clock by d and fires what is due, dropping a tick the
// reader has not taken yet, as time.Ticker does.
func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.timers[:0]
	for _, t := range f.timers {
		if t.at.After(f.now) {
			kept = append(kept, t)
			continue
		}
		select {
		case t.c <- f.now:
		default:
		}
		if t.period > 0 {
			for !t.at.After(f.now) {
				t.at = t.at.Add(t.period)
			}
			kept = append(kept, t)
		}
	}
	f.timers = kept
}

// TestFakeClockWindow: driven by a fake clock, three progress ticks of 1 s
// and a 3 s duration give three whole 1 s intervals, the third ended by the
// window's close (its tick, due with it, is left to the close), a window of
// exactly 3 s, and intervals that hold every counted op; nothing sleeps.
func TestFakeClockWindow(t *testing.T) {
	clock := &fakeClock{now: time.Now()} // ops stamp the real time: start there
	ticks, closed := make(chan result.Interval, 8), make(chan struct{})
	cfg := baseConfig()
	cfg.Clients = 2
	cfg.Duration = 3 * time.Second
	cfg.Progress = time.Second
	cfg.Clock = clock
	cfg.Observers = []Observer{Funcs{OnTick: func(iv result.Interval) { ticks <- iv }, OnWindowEnd: func() { close(closed) }}}
	type ran struct {
		out *Outcome
		err error
	}
	done := make(chan ran, 1)
	go func() {
		out, err := Run(context.Background(), cfg, openSQLite(t), &counterWorkload{pause: time.Millisecond})
		done <- ran{out, err}
	}()
	if !testutil.Poll(30*time.Second, time.Millisecond, func() bool { return clock.pending() == 2 }) { // the ticker and the duration's end
		t.Fatal("the runner never set its ticker and the duration's end on the clock")
	}
	deadline := time.After(30 * time.Second)
	for i := 1; i <= 3; i++ {
		clock.advance(time.Second)
		select {
		case iv := <-ticks:
			if iv.ElapsedS != float64(i) || iv.LengthS != 1 {
				t.Errorf("interval %d: ends at %v s and lasts %v s, want %d s and 1 s", i, iv.ElapsedS, iv.LengthS, i)
			}
		case <-deadline:
			t.Fatalf("no interval after advancing the clock to %d s", i)
		}
	}
	select {
	case <-closed:
	case <-deadline:
		t.Fatal("the window did not close at the duration's end")
	}
	var r ran
	select {
	case r = <-done:
	case <-deadline:
		t.Fatal("the run did not end after the window closed")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.out.Intervals) != 3 || r.out.Measured != 3*time.Second {
		t.Errorf("%d intervals, window %s; want 3 and 3s", len(r.out.Intervals), r.out.Measured)
	}
	if o := op(t, r.out, "bump"); intervalCount(r.out, "bump") != o.Count {
		t.Errorf("intervals hold %d bumps, the count is %d", intervalCount(r.out, "bump"), o.Count)
	}
}
