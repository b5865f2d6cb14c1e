package metrics

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// maxShards bounds the histograms each op's samples are spread over.
const maxShards = 8

// shardsFor is how many histograms each op's samples are spread over: one
// per goroutine that can run at once (GOMAXPROCS), as only that many
// record at the same time, at most maxShards. A shard's dense histogram
// was 190 KB: eight of each op on a 2-core machine were most of a TPC-C
// run's live heap (issue 40: peak memory).
func shardsFor(procs int) int { return max(1, min(procs, maxShards)) }

// shard is one mutex-guarded interval histogram, padded so that neighbouring
// shards do not share a cache line. Its histogram is made by the first
// sample it takes (most shards of a run with few clients never take one,
// issue 31: start-up), and its counts where samples fall (sparse).
type shard struct {
	mu sync.Mutex
	h  *sparse
	_  [128 - 16]byte
}

// Recorder records latencies for a fixed list of named ops from many
// goroutines. Record is cheap and safe for concurrent use; Tick and Total
// may be called from another goroutine meanwhile.
type Recorder struct {
	ops    []string
	shards []shard // op*numShards + shard
	// numShards is shardsFor(GOMAXPROCS) when the recorder was made.
	numShards int
	clamped   atomic.Int64

	// gate keeps the samples of one RecordTogether call in one interval:
	// Tick holds it while it swaps the shards.
	gate sync.RWMutex

	tickMu sync.Mutex // guards total and spare
	total  []*sparse  // cumulative, one per op
	spare  *sparse    // empty or nil; swapped into a shard on Tick
}

// NewRecorder returns a Recorder for the named ops. Record's op argument is
// an index into ops.
func NewRecorder(ops []string) *Recorder {
	n := shardsFor(runtime.GOMAXPROCS(0))
	r := &Recorder{
		ops:       append([]string(nil), ops...),
		shards:    make([]shard, len(ops)*n),
		numShards: n,
		total:     make([]*sparse, len(ops)), // each made at its op's first sample
	}
	return r
}

// Ops returns a copy of the op names, in index order.
func (r *Recorder) Ops() []string {
	return append([]string(nil), r.ops...)
}

// Record adds one sample of duration d to op (an index into Ops; out of range
// panics). shard is any non-negative int, such as the client id; clients with
// different shards rarely contend. Durations below 1 µs record as 1 µs;
// durations above 1 h record as 1 h and are counted by Clamped. Record
// allocates only the counts of a shard's first sample near a value (see
// sparse) and is safe for concurrent use.
func (r *Recorder) Record(op int, shard int, d time.Duration) {
	us, clamped := toMicros(d)
	if clamped {
		r.clamped.Add(1)
	}
	s := &r.shards[op*r.numShards+int(uint(shard)%uint(r.numShards))]
	s.mu.Lock()
	if s.h == nil {
		s.h = &sparse{}
	}
	s.h.record(us)
	s.mu.Unlock()
}

// Sample is one latency of op (an index into Ops), for RecordTogether.
type Sample struct {
	Op int
	D  time.Duration
}

// RecordTogether records samples as Record does, all in the same interval:
// a Tick never falls between them (a cycle and its ops are counted in the
// same interval, so their rates agree).
func (r *Recorder) RecordTogether(shard int, samples []Sample) {
	r.gate.RLock()
	defer r.gate.RUnlock()
	for _, s := range samples {
		r.Record(s.Op, shard, s.D)
	}
}

// Tick returns, for each op, a new histogram of the samples recorded since
// the previous Tick (owned by the caller), adds them to the cumulative
// histograms and starts a new interval. Recording is blocked only for a
// pointer swap per shard.
func (r *Recorder) Tick() []*Hist {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	r.gate.Lock()
	defer r.gate.Unlock()
	out := make([]*Hist, len(r.ops))
	for op := range r.ops {
		var iv *sparse // made at the interval's first sample: an op without any (most, in short runs) costs nothing
		for i := range r.numShards {
			s := &r.shards[op*r.numShards+i]
			s.mu.Lock()
			old := s.h
			if old == nil { // never took a sample
				s.mu.Unlock()
				continue
			}
			s.h = r.spare
			s.mu.Unlock()
			if old.total != 0 {
				if iv == nil {
					iv = &sparse{}
				}
				iv.merge(old.all())
				old.reset()
			}
			r.spare = old
		}
		if iv != nil {
			if r.total[op] == nil {
				r.total[op] = &sparse{}
			}
			r.total[op].merge(iv.all())
			out[op] = &Hist{s: iv}
		} else {
			out[op] = &Hist{} // empty, as one made empty
		}
	}
	return out
}

// Total returns, for each op, a copy of the cumulative histogram of every
// sample up to the last Tick. Call Tick once at the end of a run before Total
// so that it includes the last interval.
func (r *Recorder) Total() []*Hist {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	out := make([]*Hist, len(r.total))
	for i, h := range r.total {
		out[i] = &Hist{}
		if h != nil {
			out[i].s = h.clone()
		}
	}
	return out
}

// Final ends the recording: it closes the last interval as Tick does and
// returns it with the cumulative histograms themselves, where Total would
// copy every op's counts once more as the run ends (issue 40: a script's
// 42 steps, a megabyte at the peak of a short run). The shards' counts
// are let go. Nothing may be ticked or totalled after; what is recorded
// after is counted nowhere.
func (r *Recorder) Final() (last, totals []*Hist) {
	last = r.Tick()
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	totals = make([]*Hist, len(r.total))
	for i, h := range r.total {
		totals[i] = &Hist{s: h} // nil (no sample): empty, as Total's
	}
	r.total, r.spare = nil, nil
	for i := range r.shards { // a straggler's Record may still come: it finds nil, as a shard's first
		s := &r.shards[i]
		s.mu.Lock()
		s.h = nil
		s.mu.Unlock()
	}
	return last, totals
}

// Clamped returns the number of samples above 1 h that were recorded as 1 h.
func (r *Recorder) Clamped() int64 {
	return r.clamped.Load()
}
