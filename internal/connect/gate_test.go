package connect

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGateFIFO: with every place taken, clients get in in the order they
// queued, each as one leaves.
func TestGateFIFO(t *testing.T) {
	g := newGate(1)
	ctx := t.Context()
	var first *waiter
	if _, err := g.enter(ctx, &first); err != nil {
		t.Fatal(err)
	}
	const n = 5
	order := make(chan int, n)
	for i := range n {
		go func() {
			var w *waiter
			if queued, err := g.enter(ctx, &w); err != nil || !queued {
				t.Error(queued, err)
			}
			order <- i
		}()
		waitFor(t, func() bool { return g.waits.Load() == int64(i+1) }) // queued in turn
	}
	for want := range n {
		g.leave()
		if got := <-order; got != want {
			t.Fatalf("client %d got in, want %d", got, want)
		}
	}
	g.leave()
	if g.free != 1 || g.head != len(g.queue) {
		t.Errorf("after all left: %d free, queue %d..%d", g.free, g.head, len(g.queue))
	}
}

// TestGateCancel: waiters leave the queue with their context's error,
// both on the watched context and on one of their own, and the places
// stay counted: a later client still gets in.
func TestGateCancel(t *testing.T) {
	g := newGate(1)
	defer g.close()
	run, stopRun := context.WithCancel(context.Background())
	own, stopOwn := context.WithCancel(context.Background())
	var holder *waiter
	if _, err := g.enter(run, &holder); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 3)
	for _, ctx := range []context.Context{run, own, run} {
		go func() {
			var w *waiter
			_, err := g.enter(ctx, &w)
			errs <- err
		}()
	}
	waitFor(t, func() bool { return g.waits.Load() == 3 })
	stopOwn()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("own context: %v", err)
	}
	stopRun()
	for range 2 {
		if err := <-errs; err != context.Canceled {
			t.Fatalf("watched context: %v", err)
		}
	}
	g.leave()
	var w *waiter
	if _, err := g.enter(context.Background(), &w); err != nil || g.free != 0 {
		t.Fatalf("after the cancelled waits: %v, %d free", err, g.free)
	}
}

// TestGateLimit: many clients over few places never hold more than the
// places at once, and all of them get through.
func TestGateLimit(t *testing.T) {
	const places, clients, rounds = 3, 50, 40
	g := newGate(places)
	defer g.close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var in, most, done atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w *waiter
			for range rounds {
				if _, err := g.enter(ctx, &w); err != nil {
					t.Error(err)
					return
				}
				n := in.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				in.Add(-1)
				g.leave()
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if most.Load() > places || done.Load() != clients*rounds || g.free != places {
		t.Errorf("at most %d inside (places %d), %d passes of %d, %d free at the end", most.Load(), places, done.Load(), clients*rounds, g.free)
	}
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
