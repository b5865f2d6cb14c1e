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

// shard is one mutex-guarded set of interval histograms, one per op,
// padded so that neighbouring shards do not share a cache line. A
// client's samples go to one shard (see Record), so a cycle's samples
// take its lock once (RecordTogether), and a Tick takes a shard's whole
// set at once: a cycle's samples fall in one interval. An op's
// histogram is made by the shard's first sample of it (most shards of a
// run with few clients never take one, issue 31: start-up), and its
// counts where samples fall (sparse).
type shard struct {
	mu sync.Mutex
	hs []*sparse // per op; nil until its first sample
	_  [128 - 32]byte
}

// Recorder records latencies for a fixed list of named ops from many
// goroutines. Record is cheap and safe for concurrent use; Tick and Total
// may be called from another goroutine meanwhile.
type Recorder struct {
	ops     []string
	shards  []shard
	clamped atomic.Int64

	tickMu sync.Mutex // guards total and next
	total  []*sparse  // cumulative, one per op
	// next are the shards' sets for the interval after the next tick:
	// the sets a tick took, emptied, holding where an op had samples on
	// the shard a histogram put at rest (no counts, no chunks), so that
	// its next sample there makes none.
	next [][]*sparse

	totalsOnly []bool // per op: see TotalsOnly
}

// NewRecorder returns a Recorder for the named ops. Record's op argument is
// an index into ops.
func NewRecorder(ops []string) *Recorder {
	n := shardsFor(runtime.GOMAXPROCS(0))
	r := &Recorder{
		ops:        append([]string(nil), ops...),
		shards:     make([]shard, n),
		total:      make([]*sparse, len(ops)), // each made at its op's first sample
		next:       make([][]*sparse, n),
		totalsOnly: make([]bool, len(ops)),
	}
	for i := range r.shards {
		r.shards[i].hs = make([]*sparse, len(ops))
		r.next[i] = make([]*sparse, len(ops))
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
// allocates only a shard's histogram at its first sample of an interval
// and the counts of its first sample near a value (see sparse), and is
// safe for concurrent use.
func (r *Recorder) Record(op int, shard int, d time.Duration) {
	s := r.shard(shard)
	s.mu.Lock()
	r.record(s, op, d)
	s.mu.Unlock()
}

// shard is the shard of a recording goroutine's shard number.
func (r *Recorder) shard(n int) *shard { return &r.shards[int(uint(n)%uint(len(r.shards)))] }

// record adds a sample of op to s, whose lock the caller holds.
func (r *Recorder) record(s *shard, op int, d time.Duration) {
	us, clamped := toMicros(d)
	if clamped {
		r.clamped.Add(1)
	}
	h := s.hs[op]
	if h == nil {
		h = &sparse{}
		s.hs[op] = h
	}
	h.record(us)
}

// Sample is one latency of op (an index into Ops), for RecordTogether.
type Sample struct {
	Op int
	D  time.Duration
}

// RecordTogether records samples as Record does, all in the same interval:
// a Tick never falls between them (a cycle and its ops are counted in the
// same interval, so their rates agree). It takes the shard's lock once.
func (r *Recorder) RecordTogether(shard int, samples []Sample) {
	s := r.shard(shard)
	s.mu.Lock()
	for _, x := range samples {
		r.record(s, x.Op, x.D)
	}
	s.mu.Unlock()
}

// Tick returns, for each op, a new histogram of the samples recorded since
// the previous Tick (owned by the caller; empty for an op of TotalsOnly),
// adds them to the cumulative histograms and starts a new interval.
// Recording is blocked only for a pointer swap per shard.
func (r *Recorder) Tick() []*Hist {
	ivs, _ := r.tick(true)
	out := make([]*Hist, len(ivs))
	for op, iv := range ivs {
		out[op] = &Hist{s: iv} // nil: empty, as one made empty
	}
	return out
}

// tick closes the interval: each op's samples since the last tick go to
// its cumulative histogram, and come back as the interval's histogram
// when keep is set and the op is not TotalsOnly (nil otherwise), with
// their counts. No count is copied but into the cumulative histograms
// (issue 40: a run whose progress is not ticked closes its only interval
// as it ends, and a copy of every op's counts was most of its peak): the
// interval takes the counts of the op's first shard with samples as they
// are, the other shards' merged into them; an interval that is not kept
// is the cumulative histogram itself when it is the op's first, and
// otherwise gives its chunks to the shards' next samples, as Compact
// does when a kept one is put at rest.
func (r *Recorder) tick(keep bool) (ivs []*sparse, counts []int64) {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	taken := r.next
	for i := range r.shards { // each shard's whole set at once: see shard
		s := &r.shards[i]
		s.mu.Lock()
		s.hs, taken[i] = taken[i], s.hs
		s.mu.Unlock()
	}
	ivs, counts = make([]*sparse, len(r.ops)), make([]int64, len(r.ops))
	for op := range r.ops {
		iv := takeOp(taken, op)
		if iv == nil {
			continue
		}
		counts[op] = iv.total
		kept := keep && !r.totalsOnly[op]
		switch {
		case r.total[op] == nil && !kept:
			r.total[op] = iv
			continue
		case r.total[op] == nil:
			r.total[op] = &sparse{}
		}
		r.total[op].merge(iv.all())
		if kept {
			ivs[op] = iv
		} else {
			iv.release()
		}
	}
	r.next = taken
	return ivs, counts
}

// takeOp takes op's samples since the last tick from the shards' sets a
// tick took: the first shard's with samples as they are, the others'
// merged into them and put at rest where they were, for the shard's next
// samples; nil when there are none (most ops, in short runs, cost
// nothing).
func takeOp(taken [][]*sparse, op int) *sparse {
	var iv *sparse
	for _, hs := range taken {
		h := hs[op]
		if h == nil || h.total == 0 { // no sample since the last tick
			continue
		}
		if iv == nil {
			iv, hs[op] = h, nil // made at the shard's next sample
			continue
		}
		iv.merge(h.all())
		h.release()
	}
	return iv
}

// TotalsOnly has op's samples kept in its cumulative histogram alone:
// Tick's histograms of op are empty (Final still counts its last
// interval). For ops whose intervals nothing reads, such as a script's
// commands (many), it saves making an interval histogram of each at every
// tick. Call it before the first Tick.
func (r *Recorder) TotalsOnly(op int) { r.totalsOnly[op] = true }

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

// Final ends the recording: it closes the last interval as Tick does,
// keeping none, and returns how many samples each op took in it with the
// cumulative histograms themselves, where Total would copy every op's
// counts once more as the run ends (issue 40: a script's 42 steps, a
// megabyte at the peak of a short run). The shards' counts are let go.
// Nothing may be ticked or totalled after; what is recorded after is
// counted nowhere.
func (r *Recorder) Final() (last []int64, totals []*Hist) {
	_, last = r.tick(false)
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	totals = make([]*Hist, len(r.total))
	for i, h := range r.total {
		totals[i] = &Hist{s: h} // nil (no sample): empty, as Total's
	}
	r.total, r.next = nil, nil
	for i := range r.shards { // a straggler's Record may still come: it finds nil, as a shard's first
		s := &r.shards[i]
		s.mu.Lock()
		clear(s.hs)
		s.mu.Unlock()
	}
	return last, totals
}

// Clamped returns the number of samples above 1 h that were recorded as 1 h.
func (r *Recorder) Clamped() int64 {
	return r.clamped.Load()
}
