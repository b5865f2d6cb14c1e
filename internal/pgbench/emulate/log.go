package emulate

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
	"github.com/txnbench/txnbench/internal/workload/pgbenchscript"
)

// txnLog writes pgbench's transaction logs (-l): one file per thread,
// PREFIX.PID for the first and PREFIX.PID.N for thread N, either a line
// per transaction or, with --aggregate-interval, a line per interval.
type txnLog struct {
	o       *pgbenchOpts
	files   []*logFile
	threads []int   // the thread of each client
	counts  []int64 // transactions per client, for transaction_no
}

type logFile struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	thread int
	sample *prng.State // pgbench's ts_sample_rs, seeded at the first sample
	agg    aggregate
}

// aggregate is one --aggregate-interval line in the making.
type aggregate struct {
	start                        int64 // µs since the epoch
	cnt, skipped, retried, tries int64
	serial, deadlock             int64
	lat, lag                     moments
}

type moments struct{ sum, sum2, min, max float64 }

func (m *moments) add(v float64) {
	if m.sum == 0 && m.sum2 == 0 || v < m.min {
		m.min = v
	}
	m.max = math.Max(m.max, v)
	m.sum += v
	m.sum2 += v * v
}

// newTxnLog opens the log files, or returns a log that writes nothing
// without -l.
func newTxnLog(o *pgbenchOpts, pid int) (*txnLog, error) {
	l := &txnLog{o: o}
	if !o.log {
		return l, nil
	}
	start := time.Now().UnixMicro()
	for t := 0; t < o.threads; t++ {
		name := fmt.Sprintf("%s.%d", o.logPrefix, pid)
		if t > 0 {
			name += fmt.Sprintf(".%d", t)
		}
		f, err := os.Create(name)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("could not open logfile %q: %w", name, err)
		}
		lf := &logFile{f: f, w: bufio.NewWriterSize(f, 64<<10)}
		lf.thread = t
		lf.agg.start = start
		l.files = append(l.files, lf)
	}
	l.counts = make([]int64, o.clients)
	l.threads = make([]int, o.clients)
	for c := range l.threads {
		l.threads[c] = pgbenchscript.ThreadOf(c, o.clients, o.threads)
	}
	return l, nil
}

// add logs one transaction; it is called from the client's goroutine.
func (l *txnLog) add(e *runner.CycleEvent) {
	if l.files == nil {
		return
	}
	l.counts[e.Client]++
	n := l.counts[e.Client]
	lf := l.files[l.threads[e.Client]]
	lf.mu.Lock()
	defer lf.mu.Unlock()
	done := e.Start.Add(e.Latency)
	if e.Skipped {
		done = e.Start
	}
	if l.o.aggInterval > 0 {
		l.aggregate(lf, e, done.UnixMicro())
		return
	}
	if l.o.samplingRate > 0 {
		if lf.sample == nil {
			lf.sample = prng.NewState(l.o.w.Seeds().Sample[lf.thread])
		}
		if lf.sample.Double() > l.o.samplingRate {
			return
		}
	}
	script := max(e.Op, 0)
	us := done.UnixMicro()
	var what string
	switch {
	case e.Skipped:
		what = "skipped"
	case e.Err != nil && !errors.Is(e.Err, workload.ErrAbortAfter):
		what = "failed"
		if l.o.failuresDetailed {
			switch target.Classify(e.Err) {
			case errclass.Serialization:
				what = "serialization"
			case errclass.Deadlock:
				what = "deadlock"
			}
		}
	default:
		what = fmt.Sprint(e.Latency.Microseconds())
	}
	fmt.Fprintf(lf.w, "%d %d %s %d %d %d", e.Client, n, what, script, us/1e6, us%1e6)
	if l.o.rate > 0 {
		fmt.Fprintf(lf.w, " %d", e.Lag.Microseconds())
	}
	if l.o.maxTries != 1 {
		fmt.Fprintf(lf.w, " %d", e.Retries)
	}
	lf.w.WriteByte('\n')
}

// aggregate adds e to its file's interval, first writing the intervals
// that ended before it.
func (l *txnLog) aggregate(lf *logFile, e *runner.CycleEvent, now int64) {
	step := int64(l.o.aggInterval) * 1e6
	for now >= lf.agg.start+step {
		l.writeAggregate(lf)
		lf.agg = aggregate{start: lf.agg.start + step}
	}
	a := &lf.agg
	switch {
	case e.Skipped:
		a.skipped++
	case e.Err != nil:
		switch target.Classify(e.Err) {
		case errclass.Serialization:
			a.serial++
		case errclass.Deadlock:
			a.deadlock++
		}
	default:
		a.cnt++
		a.lat.add(float64(e.Latency.Microseconds()))
		if l.o.rate > 0 {
			a.lag.add(float64(e.Lag.Microseconds()))
		}
		if e.Retries > 0 {
			a.retried++
			a.tries += int64(e.Retries)
		}
	}
}

// writeAggregate writes one interval in pgbench 15's column order.
func (l *txnLog) writeAggregate(lf *logFile) {
	a := lf.agg
	serial, deadlock := a.serial, a.deadlock
	if !l.o.failuresDetailed {
		serial, deadlock = 0, 0
	}
	fmt.Fprintf(lf.w, "%d %d %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %d %d %d %d %d\n",
		a.start/1e6, a.cnt, a.lat.sum, a.lat.sum2, a.lat.min, a.lat.max,
		a.lag.sum, a.lag.sum2, a.lag.min, a.lag.max, a.skipped, a.retried, a.tries, serial, deadlock)
}

// close writes the last interval and closes the files.
func (l *txnLog) close() error {
	var first error
	for _, lf := range l.files {
		lf.mu.Lock()
		if l.o.aggInterval > 0 {
			l.writeAggregate(lf)
		}
		if err := lf.w.Flush(); err != nil && first == nil {
			first = err
		}
		if err := lf.f.Close(); err != nil && first == nil {
			first = err
		}
		lf.mu.Unlock()
	}
	return first
}
