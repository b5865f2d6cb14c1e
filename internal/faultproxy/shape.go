package faultproxy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Shape is the network a proxy makes between its two sides: a round trip,
// its jitter, a bandwidth and a loss rate. The zero Shape adds nothing but
// the proxy's own hop.
type Shape struct {
	RTT    time.Duration // round trip: half of it each way
	Jitter time.Duration // each chunk's one-way delay varies by up to this, either way
	Rate   int64         // bits per second each way; 0: unlimited
	Loss   float64       // fraction of chunks that arrive a retransmission late
}

// lossPenalty is how late a lost chunk arrives beyond its round trip:
// Linux's minimum TCP retransmission timeout.
const lossPenalty = 200 * time.Millisecond

// maxQueued is how many bytes a direction of a shaped connection holds
// in flight before its reader waits, like a full TCP window.
const maxQueued = 4 << 20

// ParseShape parses rtt=2ms[,jitter=0.2ms][,rate=1gbit][,loss=0.1%]; +
// separates the keys too (rtt=2ms+jitter=0.2ms), for lists that commas
// separate, such as a study's --vary values.
func ParseShape(s string) (Shape, error) {
	var sh Shape
	seen := map[string]bool{}
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '+' }) {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || v == "" {
			return sh, fmt.Errorf("%q: want key=value, e.g. rtt=2ms,jitter=0.2ms,rate=1gbit,loss=0.1%%", kv)
		}
		if seen[k] {
			return sh, fmt.Errorf("%s given twice", k)
		}
		seen[k] = true
		var err error
		switch k {
		case "rtt", "jitter":
			var d time.Duration
			if d, err = time.ParseDuration(v); err == nil && (d < 0 || d > time.Minute) {
				err = errors.New("want 0 to 1m")
			}
			if k == "rtt" {
				sh.RTT = d
			} else {
				sh.Jitter = d
			}
		case "rate":
			sh.Rate, err = parseRate(v)
		case "loss":
			sh.Loss, err = parseLoss(v)
		default:
			return sh, fmt.Errorf("unknown %q: use rtt, jitter, rate or loss", k)
		}
		if err != nil {
			return sh, fmt.Errorf("%s=%s: %w", k, v, err)
		}
	}
	if !seen["rtt"] {
		return sh, errors.New("no rtt: give at least rtt=DURATION, e.g. rtt=2ms (rtt=0ms: the proxy's hop alone)")
	}
	if sh.Jitter > sh.RTT/2 {
		return sh, fmt.Errorf("jitter=%s is more than half of rtt=%s: a one-way delay cannot go below 0", sh.Jitter, sh.RTT)
	}
	return sh, nil
}

// parseRate parses a bandwidth: a number with kbit, mbit or gbit (or bit),
// as tc writes it.
func parseRate(v string) (int64, error) {
	lv := strings.ToLower(v)
	mult := int64(0)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}} {
		if strings.HasSuffix(lv, u.suffix) {
			lv, mult = strings.TrimSuffix(lv, u.suffix), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(lv, 64)
	if mult == 0 || err != nil || !(f*float64(mult) >= 1000) || f*float64(mult) > 1e12 {
		return 0, errors.New("want a bandwidth from 1kbit to 1000gbit, e.g. 100mbit or 1gbit")
	}
	return int64(f * float64(mult)), nil
}

// parseLoss parses a loss rate: a percentage (0.1%) below 100.
func parseLoss(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if !strings.HasSuffix(v, "%") || err != nil || !(f >= 0 && f < 100) {
		return 0, errors.New("want a percentage from 0% to below 100%, e.g. 0.1%")
	}
	return f / 100, nil
}

// String is the shape as ParseShape reads it.
func (s Shape) String() string {
	out := "rtt=" + s.RTT.String()
	if s.Jitter > 0 {
		out += ",jitter=" + s.Jitter.String()
	}
	if s.Rate > 0 {
		out += ",rate=" + formatRate(s.Rate)
	}
	if s.Loss > 0 {
		out += ",loss=" + strconv.FormatFloat(s.Loss*100, 'g', -1, 64) + "%"
	}
	return out
}

func formatRate(r int64) string {
	for _, u := range []struct {
		unit string
		div  int64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if r >= u.div {
			return strconv.FormatFloat(float64(r)/float64(u.div), 'g', -1, 64) + u.unit
		}
	}
	return strconv.FormatInt(r, 10) + "bit"
}

// timerSlack is how late a Go timer may fire in an idle process (its
// poller waits in whole milliseconds): a link's timer is set this much
// early, and the rest slept precisely.
const timerSlack = time.Millisecond

// maxEarly caps how early a link wakes; so does half its one-way delay.
const maxEarly = time.Millisecond

// adjust corrects how early links wake by how late the write of a chunk
// was: waking and writing takes the proxy time, which would otherwise add
// to every delay, and a sub-millisecond round trip is not much more. A
// write that came early takes half its earliness off at once, a late one
// adds a 64th of its lateness, so links wake early by about the least
// lateness the machine shows (a busy moment adds to some chunks, never
// takes off). The round trip measured through the path says what the
// clients got.
func (l *link) adjust(late, early time.Duration) {
	step := late / 64
	if late < 0 {
		step = late / 2
	}
	next := min(max(early+step, 0), maxEarly, l.shape.RTT/4)
	l.early.CompareAndSwap(int64(early), int64(next))
}

// bufPool holds the chunks in flight.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// chunk is what one read got, due at the other side at at; eof marks the
// end of the direction.
type chunk struct {
	buf  *[]byte
	n    int
	from time.Time // when its delay began: read, the handshake's round trip after for a connection's first
	at   time.Time
	eof  bool
}

// link is one direction of a shaped connection: its reader (the copy
// loop) queues chunks in the order read, each with the time it is due;
// one goroutine with one timer writes every due chunk at once.
type link struct {
	pr    *pair
	dst   net.Conn
	shape Shape
	rng   *rand.Rand
	first time.Duration // added to the first chunk: the TCP handshake's round trip

	mu     sync.Mutex
	cond   *sync.Cond // the reader waits for room
	q      []chunk
	queued int
	last   time.Time // the last chunk's due time: chunks stay in order
	txFree time.Time // when the link has sent what it holds, at Rate
	wake   chan struct{}
	ended  bool
	// early is the proxy's: how much before a chunk's due time its link
	// wakes to write it (see lateness).
	early *atomic.Int64
	held  *holds // the proxy's: how long its chunks were held
}

// holds adds up how long a shaped proxy held the chunks it wrote, by its
// own clock: from when a chunk's delay began to the end of its write.
type holds struct {
	chunks atomic.Int64
	ns     atomic.Int64
}

func (h *holds) add(now time.Time, froms []time.Time) {
	var ns int64
	for _, f := range froms {
		ns += int64(now.Sub(f))
	}
	h.chunks.Add(int64(len(froms)))
	h.ns.Add(ns)
}

// Held is what a shaped proxy held: how many chunks, and for how long in
// all, by its own clock (a one-way delay each: half the round trip asked,
// with jitter, rate and loss, and the proxy's own lateness).
type Held struct {
	Chunks int64
	Total  time.Duration
}

// Sub is h less an earlier reading.
func (h Held) Sub(o Held) Held { return Held{h.Chunks - o.Chunks, h.Total - o.Total} }

// RoundTrip is twice the mean one-way hold: the round trip the proxy
// added; 0 when it held nothing.
func (h Held) RoundTrip() time.Duration {
	if h.Chunks <= 0 {
		return 0
	}
	return 2 * h.Total / time.Duration(h.Chunks)
}

func newLink(pr *pair, dst net.Conn, s Shape, seed uint64, first time.Duration, early *atomic.Int64, held *holds) *link {
	l := &link{pr: pr, dst: dst, shape: s, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), first: first, wake: make(chan struct{}, 1), early: early, held: held}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// due is when a chunk of n bytes read now reaches the other side, and
// when its delay begins (now, or after the handshake's round trip for a
// connection's first).
func (l *link) due(now time.Time, n int) (from, at time.Time) {
	from = now.Add(l.first)
	at = now
	if l.shape.Rate > 0 {
		at = maxTime(now, l.txFree).Add(time.Duration(math.Ceil(float64(n) * 8 * 1e9 / float64(l.shape.Rate))))
		l.txFree = at
	}
	d := l.shape.RTT/2 + l.first
	l.first = 0
	if j := l.shape.Jitter; j > 0 {
		d += time.Duration(l.rng.Int64N(int64(2*j)+1)) - j
	}
	if l.shape.Loss > 0 && l.rng.Float64() < l.shape.Loss {
		d += max(lossPenalty, l.shape.RTT)
	}
	at = maxTime(at.Add(d), l.last)
	l.last = at
	return from, at
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// put queues a chunk (eof: the end), waiting while the link holds
// maxQueued bytes; false when the connection ended.
func (l *link) put(buf *[]byte, n int, eof bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.queued >= maxQueued && !l.ended {
		l.cond.Wait()
	}
	if l.ended {
		return false
	}
	from, at := l.due(time.Now(), n)
	l.q = append(l.q, chunk{buf: buf, n: n, from: from, at: at, eof: eof})
	l.queued += n
	if len(l.q) == 1 {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// send writes the queued chunks as they fall due, all those due at once
// in one write, until the end of the direction or of the connection.
func (l *link) send() {
	defer func() {
		l.mu.Lock()
		l.ended = true
		for _, c := range l.q {
			if c.buf != nil {
				bufPool.Put(c.buf)
			}
		}
		l.q = nil
		l.cond.Broadcast()
		l.mu.Unlock()
		l.pr.close(false)
	}()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var out net.Buffers
	var bufs []*[]byte
	var froms []time.Time
	for {
		l.mu.Lock()
		if len(l.q) == 0 {
			l.mu.Unlock()
			select {
			case <-l.wake:
				continue
			case <-l.pr.done:
				return
			}
		}
		now := time.Now()
		early := time.Duration(l.early.Load())
		horizon := now.Add(early)
		i, eof, due := 0, false, time.Time{}
		for ; i < len(l.q) && !l.q[i].at.After(horizon); i++ {
			if i == 0 {
				due = l.q[0].at
			}
			c := l.q[i]
			if c.eof {
				eof = true
				i++
				break
			}
			out = append(out, (*c.buf)[:c.n])
			bufs = append(bufs, c.buf)
			froms = append(froms, c.from)
			l.queued -= c.n
		}
		if i == 0 {
			wait := l.q[0].at.Sub(horizon)
			l.mu.Unlock()
			if wait <= timerSlack {
				// Go's timers wake an idle process in whole
				// milliseconds: a sub-millisecond delay would
				// become one. Sleep in the kernel instead.
				preciseSleep(wait)
				continue
			}
			timer.Reset(wait - timerSlack)
			select {
			case <-timer.C:
				continue
			case <-l.pr.done:
				timer.Stop()
				return
			}
		}
		l.q = l.q[i:]
		l.cond.Broadcast()
		l.mu.Unlock()
		if len(out) > 0 {
			w := out // WriteTo consumes its receiver
			_, err := w.WriteTo(l.dst)
			now := time.Now()
			l.adjust(now.Sub(due), early)
			l.held.add(now, froms)
			for _, b := range bufs {
				bufPool.Put(b)
			}
			out, bufs, froms = out[:0], bufs[:0], froms[:0]
			if err != nil {
				return
			}
		}
		if eof {
			return
		}
	}
}
