package connect

import (
	"context"
	"sync"
	"sync/atomic"
)

// gate lets at most as many clients into the pool as it has connections
// and queues the others first come, first served, each on a channel of its
// own. Without it, 10,000 clients over 64 connections all waited inside
// the pool's semaphore: a channel and a list element allocated per wait,
// and a select on the run's context, whose Done channel every waiter
// queued on and locked (issue 18). A client that gives its connection back
// hands its place to the first in the queue.
type gate struct {
	mu    sync.Mutex
	free  int       // places not taken
	queue []*waiter // waiting, first at head
	head  int
	// ctx is the context whose cancellation wakes its waiters (the run's:
	// every client passes the same one), watched once rather than by a
	// select per wait; waiters with another context select on theirs.
	ctx  context.Context
	stop func() bool

	waits  atomic.Int64 // Gets that queued
	waited atomic.Int64 // nanoseconds those Gets took, counted by the pool's Get
}

// waiter is one client's place in the queue, reused from wait to wait.
type waiter struct {
	ready chan struct{} // signalled once per wait, when state is set
	ctx   context.Context
	state int // waiting, granted or cancelled; guarded by gate.mu
}

const (
	waiting = iota
	granted
	cancelled
)

func newGate(places int) *gate { return &gate{free: places} }

// enter takes a place, waiting in the queue when there is none (queued
// says it did). *w is the client's waiter (made on first use; replaced after
// a cancelled wait, which may still sit in the queue). It returns ctx's
// error when ctx ends first.
func (g *gate) enter(ctx context.Context, w **waiter) (queued bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	g.mu.Lock()
	if g.free > 0 && g.head == len(g.queue) {
		g.free--
		g.mu.Unlock()
		return false, nil
	}
	if *w == nil {
		*w = &waiter{ready: make(chan struct{}, 1)}
	}
	me := *w
	me.ctx, me.state = ctx, waiting
	g.queue = append(g.queue, me)
	if g.ctx == nil && ctx.Done() != nil {
		g.ctx, g.stop = ctx, context.AfterFunc(ctx, g.cancel)
	}
	watched := ctx == g.ctx
	g.mu.Unlock()
	g.waits.Add(1)

	if watched {
		<-me.ready
	} else {
		select {
		case <-me.ready:
		case <-ctx.Done():
			g.mu.Lock()
			if me.state == waiting {
				me.state = cancelled
			} else {
				<-me.ready // granted meanwhile: sent under mu, so it is there
			}
			g.mu.Unlock()
		}
	}
	if me.state == granted { // set before ready was signalled, or under mu above
		return true, nil
	}
	*w = nil // may still be in the queue: the next wait takes a new place
	return true, ctx.Err()
}

// leave gives a place back: to the first in the queue, or to the free ones.
func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.head < len(g.queue) {
		w := g.queue[g.head]
		g.queue[g.head] = nil
		g.head++
		if w.state == waiting {
			w.state = granted
			w.ready <- struct{}{}
			g.compact()
			return
		}
	}
	g.compact()
	g.free++
}

// compact drops the queue's served part once it is half of it.
func (g *gate) compact() {
	if g.head == len(g.queue) {
		g.queue, g.head = g.queue[:0], 0
	} else if g.head > len(g.queue)/2 && g.head > 64 {
		n := copy(g.queue, g.queue[g.head:])
		clear(g.queue[n:])
		g.queue, g.head = g.queue[:n], 0
	}
}

// cancel wakes the waiters of the watched context, which has ended.
func (g *gate) cancel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, w := range g.queue[g.head:] {
		if w != nil && w.state == waiting && w.ctx == g.ctx {
			w.state = cancelled
			w.ready <- struct{}{}
		}
	}
}

// close stops watching the context.
func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil {
		g.stop()
	}
}
