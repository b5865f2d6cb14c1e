package runner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
)

// counters counts retries, errors by class, late and skipped cycles per
// op, lock-free, with running totals and per-interval deltas.
type counters struct {
	classIdx map[errclass.Class]int
	retries  []atomic.Int64
	late     []atomic.Int64   // finished later than the latency limit
	skipped  []atomic.Int64   // not started: already later than the limit
	errors   [][]atomic.Int64 // [op][class]
	// started in the window, still running when the run ended, and the
	// longest any of them had run (nanoseconds)
	unfinished, unfinishedMax []atomic.Int64
	// of cycles begun before the window, completed inside it
	before []atomic.Int64
	// what the previous interval had seen
	lastRetries, lastSkipped []int64
	lastErrors               [][]int64 // [op][class]
	// the first message of each op and class, so a report can say what
	// went wrong and not only how often
	mu      sync.Mutex
	samples []map[string]string
}

func newCounters(ops []string) *counters {
	c := &counters{
		classIdx:      map[errclass.Class]int{},
		retries:       make([]atomic.Int64, len(ops)),
		late:          make([]atomic.Int64, len(ops)),
		skipped:       make([]atomic.Int64, len(ops)),
		unfinished:    make([]atomic.Int64, len(ops)),
		unfinishedMax: make([]atomic.Int64, len(ops)),
		before:        make([]atomic.Int64, len(ops)),
		errors:        make([][]atomic.Int64, len(ops)),
		lastRetries:   make([]int64, len(ops)),
		lastErrors:    make([][]int64, len(ops)),
		lastSkipped:   make([]int64, len(ops)),
		samples:       make([]map[string]string, len(ops)),
	}
	for i, cl := range errclass.All {
		c.classIdx[cl] = i
	}
	for i := range c.errors {
		c.errors[i] = make([]atomic.Int64, len(errclass.All))
		c.lastErrors[i] = make([]int64, len(errclass.All))
	}
	return c
}

func (c *counters) retry(op int) { c.retries[op].Add(1) }

// unfinish counts an op cut short by the end of the run after running for d.
func (c *counters) unfinish(op int, d time.Duration) {
	c.unfinished[op].Add(1)
	for m := c.unfinishedMax[op].Load(); int64(d) > m; m = c.unfinishedMax[op].Load() {
		if c.unfinishedMax[op].CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// fail counts an error of op of class; err, when not nil, is kept as the
// class's sample if it is the first.
func (c *counters) fail(op int, class errclass.Class, err error) {
	i, ok := c.classIdx[class]
	if !ok {
		i = c.classIdx[errclass.Other]
	}
	if c.errors[op][i].Add(1) == 1 && err != nil {
		c.mu.Lock()
		if c.samples[op] == nil {
			c.samples[op] = map[string]string{}
		}
		c.samples[op][string(errclass.All[i])] = target.Message(err)
		c.mu.Unlock()
	}
}

// samplesOf returns the first error message of each class of an op.
func (c *counters) samplesOf(op int) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.samples[op]
}

// total returns an op's retries and its errors by class name (nil if none).
func (c *counters) total(op int) (int64, map[string]int64) {
	var errs map[string]int64
	for i, cl := range errclass.All {
		if n := c.errors[op][i].Load(); n > 0 {
			if errs == nil {
				errs = map[string]int64{}
			}
			errs[string(cl)] = n
		}
	}
	return c.retries[op].Load(), errs
}

// interval returns an op's retries, errors (in all and by class name, nil
// when none) and skipped cycles since the previous call. It is called from
// one goroutine, the ticker's: the clients only add to the atomics, so
// splitting errors by class costs them nothing.
func (c *counters) interval(op int) (retries, errs int64, classes map[string]int64, skipped int64) {
	r, s := c.retries[op].Load(), c.skipped[op].Load()
	for i := range c.errors[op] {
		n := c.errors[op][i].Load()
		if d := n - c.lastErrors[op][i]; d > 0 {
			if classes == nil {
				classes = map[string]int64{}
			}
			classes[string(errclass.All[i])] = d
			errs += d
		}
		c.lastErrors[op][i] = n
	}
	retries, skipped = r-c.lastRetries[op], s-c.lastSkipped[op]
	c.lastRetries[op], c.lastSkipped[op] = r, s
	return retries, errs, classes, skipped
}

// opCounts is an op's retries and errors by class name (nil if none) at
// one moment.
type opCounts struct {
	retries int64
	errors  map[string]int64
}

// snapshot is every op's totals as the intervals so far counted them:
// taken by the ticker's goroutine right after the window's last interval,
// it splits a run's retries and errors into the window's and those after
// it, so the intervals add up to the window's exactly.
func (c *counters) snapshot() []opCounts {
	s := make([]opCounts, len(c.retries))
	for i := range s {
		s[i].retries = c.lastRetries[i]
		for j, n := range c.lastErrors[i] {
			if n > 0 {
				if s[i].errors == nil {
					s[i].errors = map[string]int64{}
				}
				s[i].errors[string(errclass.All[j])] = n
			}
		}
	}
	return s
}

// after is what totals taken later (retries, errors) added to s.
func (s opCounts) after(retries int64, errs map[string]int64) (int64, map[string]int64) {
	var more map[string]int64
	for k, n := range errs {
		if d := n - s.errors[k]; d > 0 {
			if more == nil {
				more = map[string]int64{}
			}
			more[k] = d
		}
	}
	return retries - s.retries, more
}
