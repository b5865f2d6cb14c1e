package telemetry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// The wait history's bounds: what a run keeps to explain its slowest ops
// afterwards. When either is reached the older half of the samples goes.
const (
	historyTicks = 1 << 17 // samples: 3.6 hours at 100 ms (1 MB)
	historyRuns  = 1 << 18 // runs of one session in one state (4 MB)
)

// waitHistory keeps each session's wait samples with their times, as runs
// of consecutive samples in the same state, so that after the run the
// slowest ops can be joined with what their sessions were doing. Sessions
// keep their state across many samples while they wait, which is when it
// matters, so runs compress well. It is used by the sampling goroutine,
// then by ExplainSlowOps after Finish.
type waitHistory struct {
	times   []int64 // each sample's time in unix nanos; times[i] is tick base+i
	base    uint32
	trimmed bool              // older samples were dropped
	names   []string          // states by index
	index   map[string]uint16 // ... and their indexes
	open    map[uint32]int    // each session's latest run, an index in runs
	runs    []waitRun         // in the order they started
}

// waitRun is a session's consecutive samples (ticks first..last) in one
// state.
type waitRun struct {
	pid         uint32
	ev          uint16
	first, last uint32
}

func newWaitHistory() *waitHistory {
	return &waitHistory{index: map[string]uint16{}, open: map[uint32]int{}}
}

// add records one sample taken at at, as the second column of waitsQuery
// gives it: "STATE=PID PID,...". Malformed parts are skipped. Once the
// states and sessions have been seen it allocates only to grow its runs.
func (h *waitHistory) add(at time.Time, pids string) {
	tick := h.base + uint32(len(h.times))
	h.times = append(h.times, at.UnixNano())
	for pids != "" {
		name, list, rest, ok := nextPair(pids)
		pids = rest
		if !ok {
			continue
		}
		ev, ok := h.event(name)
		if !ok {
			continue
		}
		for list != "" {
			p := list
			if i := strings.IndexByte(list, ' '); i >= 0 {
				p, list = list[:i], list[i+1:]
			} else {
				list = ""
			}
			n, err := strconv.ParseUint(p, 10, 32)
			if err != nil {
				continue
			}
			pid := uint32(n)
			if r, ok := h.open[pid]; ok && h.runs[r].ev == ev && h.runs[r].last+1 == tick {
				h.runs[r].last = tick
				continue
			}
			h.open[pid] = len(h.runs)
			h.runs = append(h.runs, waitRun{pid: pid, ev: ev, first: tick, last: tick})
		}
	}
	for len(h.times) > 1 && (len(h.times) > historyTicks || len(h.runs) > historyRuns) {
		h.trim()
	}
}

// event returns the index of a state's name, false when there are too
// many names to index.
func (h *waitHistory) event(name string) (uint16, bool) {
	if i, ok := h.index[name]; ok {
		return i, true
	}
	if len(h.names) > 1<<16-1 {
		return 0, false
	}
	name = strings.Clone(name) // keep the name, not the whole sample
	h.index[name] = uint16(len(h.names))
	h.names = append(h.names, name)
	return uint16(len(h.names) - 1), true
}

// trim drops the older half of the samples and the runs that ended in it.
func (h *waitHistory) trim() {
	half := len(h.times) / 2
	cut := h.base + uint32(half)
	h.times = append(h.times[:0], h.times[half:]...)
	h.base, h.trimmed = cut, true
	runs := h.runs[:0]
	for _, r := range h.runs {
		if r.last >= cut {
			r.first = max(r.first, cut)
			runs = append(runs, r)
		}
	}
	h.runs = runs
	clear(h.open)
	for i, r := range h.runs {
		h.open[r.pid] = i // runs are in order, so a session's latest wins
	}
}

// explain fills in o's waits: the samples of its session taken while it
// ran, each standing for every (one sampling interval).
func (h *waitHistory) explain(o *result.SlowOp, every time.Duration) {
	start := o.Start.UnixNano()
	end := start + int64(o.LatencyMS*float64(time.Millisecond))
	if len(h.times) == 0 {
		o.Note = "no wait samples were taken"
		return
	}
	if h.trimmed && end < h.times[0] {
		o.Note = fmt.Sprintf("its wait samples are no longer kept (only the last %s of them are)", time.Duration(len(h.times))*every)
		return
	}
	a := sort.Search(len(h.times), func(i int) bool { return h.times[i] >= start })
	b := sort.Search(len(h.times), func(i int) bool { return h.times[i] > end })
	o.Samples = b - a
	if a == b {
		o.Note = fmt.Sprintf("no wait sample fell inside it: one is taken every %s", every)
		return
	}
	first, last := h.base+uint32(a), h.base+uint32(b-1)
	counts := map[uint16]int{}
	for _, r := range h.runs {
		if r.first > last {
			break
		}
		if r.pid != o.BackendPID || r.last < first {
			continue
		}
		counts[r.ev] += int(min(r.last, last)-max(r.first, first)) + 1
	}
	if len(counts) == 0 {
		o.Note = fmt.Sprintf("its session was not seen in the %d wait samples taken while it ran", o.Samples)
		return
	}
	for ev, n := range counts {
		o.Waits = append(o.Waits, result.SlowWait{Event: h.names[ev], Samples: n,
			MS: float64(n) * float64(every) / float64(time.Millisecond)})
	}
	sort.Slice(o.Waits, func(i, j int) bool {
		if o.Waits[i].Samples != o.Waits[j].Samples {
			return o.Waits[i].Samples > o.Waits[j].Samples
		}
		return o.Waits[i].Event < o.Waits[j].Event
	})
}

// Why a slow op has no session to look at.
const (
	// BackendPooled: the client went through a pooler, which hands each
	// transaction to any of its server sessions.
	BackendPooled = "unknown backend (pooled)"
	// BackendSeveral: a cycle whose transactions ran on different sessions.
	BackendSeveral = "several backends"
)

// ExplainSlowOps fills in what each slow op's server session was doing
// while it ran, from the wait samples. Call it after Finish; c may be nil
// (--telemetry off). pooled says the clients went through a pooler: their
// pids are the pooler's stand-ins, not server sessions.
func (c *Collector) ExplainSlowOps(ops []result.SlowOp, pooled bool) {
	for i := range ops {
		o := &ops[i]
		switch {
		case pooled:
			o.BackendPID, o.Backend = 0, BackendPooled
		case o.BackendPID != 0 && c == nil:
			o.Note = "no wait samples: telemetry is off"
		case o.BackendPID != 0 && c.o.Server.URL != "":
			c.history.explain(o, c.o.Sample)
		case o.BackendPID == 0 && o.Op == result.CycleOp && c != nil && c.o.Server.URL != "":
			o.Backend = BackendSeveral
		}
	}
}
