package tpcc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// loadSessions is how many sessions load warehouses at once: one per core
// of this machine (at least two, as the server's work is the larger
// share), no more than there are warehouses. A dialect with a single
// writer (no SKIP LOCKED, see target.Capabilities) loads on one.
func loadSessions(d target.Dialect, o workload.InitOptions, warehouses int) int {
	if o.Connect == nil || !d.Caps.SkipLocked {
		return 1
	}
	return min(warehouses, max(2, runtime.NumCPU()))
}

// loadWarehouses loads every warehouse's rows, on l's session and, in
// parallel, on more sessions from o.Connect; the first error stops all.
func (w *Workload) loadWarehouses(ctx context.Context, l *loader, d target.Dialect, o workload.InitOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	next := make(chan int)
	var (
		mu   sync.Mutex
		errs []error
		done int
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
		cancel()
	}
	work := func(l *loader) {
		for wh := range next {
			if err := l.warehouse(ctx, wh); err != nil {
				fail(err)
				return
			}
			mu.Lock()
			done++
			o.Progress(fmt.Sprintf("loaded %d of %d warehouses (%.1f s)", done, w.sc.warehouses, time.Since(start).Seconds()))
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	n := loadSessions(d, o, w.sc.warehouses)
	for i := range n {
		wl := l
		if i > 0 {
			c, err := o.Connect(ctx)
			if err != nil {
				fail(fmt.Errorf("opening a session to load in parallel: %w", err))
				break
			}
			defer c.Close(context.Background())
			cp, ok := c.(target.Copier)
			if !ok {
				fail(errors.New("loading TPC-C: the database session cannot bulk load (no target.Copier)"))
				break
			}
			own := *l
			own.c = cp
			wl = &own
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(wl)
		}()
	}
feed:
	for wh := 1; wh <= w.sc.warehouses; wh++ {
		select {
		case next <- wh:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return ctx.Err()
}
