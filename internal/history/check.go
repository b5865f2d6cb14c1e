package history

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Class is an anomaly class.
type Class string

// The classes Check reports, after Adya (1999) and Elle (Kingsbury and
// Alvaro, 2020). A cycle found through process or real-time order edges
// adds "-process" or "-realtime" to its class (G-single-realtime).
const (
	G0                Class = "G0"                 // a cycle of ww edges: dirty write
	G1a               Class = "G1a"                // aborted read: a committed read of a failed txn's write
	G1b               Class = "G1b"                // intermediate read: a read of a txn's non-final write of a key
	G1c               Class = "G1c"                // a cycle of ww and wr edges, one wr at least
	GSingle           Class = "G-single"           // a cycle with exactly one rw edge (read skew)
	G2Item            Class = "G2-item"            // a cycle with two rw edges or more (write skew)
	GNonadjacent      Class = "G-nonadjacent"      // a G2-item cycle whose rw edges are never consecutive
	LostUpdate        Class = "lost-update"        // two committed txns read one version of a key and both wrote it
	Internal          Class = "internal"           // a txn's read contradicts its own earlier writes or reads
	IncompatibleOrder Class = "incompatible-order" // two reads of a list that are not prefixes of one another
)

// Edge types of the dependency graph, a bit each.
const (
	WW       uint8 = 1 << iota // Tj overwrote Ti's version
	WR                         // Tj read Ti's version
	RW                         // Tj overwrote the version Ti read
	Process                    // Tj is the next txn of Ti's process
	Realtime                   // Tj started after Ti ended
)

func edgeName(t uint8) string {
	switch t {
	case WW:
		return "ww"
	case WR:
		return "wr"
	case RW:
		return "rw"
	case Process:
		return "process"
	case Realtime:
		return "realtime"
	}
	return "?"
}

// Options say which order edges join the graph.
type Options struct {
	Process  bool // each process's txns in the order it ran them
	Realtime bool // Ti before Tj when Ti ended before Tj started
}

// Step is one edge of an example cycle: From's and To's txn indexes, its
// type and the key (and values) that made it.
type Step struct {
	From, To int
	Type     uint8
	Key      int64
	Text     string // "ww x: 3 < 4", "wr x=3", "rw x: read [1 2], 3 next"
}

// Anomaly is one class found, how often (cycles: once per strongly
// connected component it was found in; the rest: once per instance) and
// one example.
type Anomaly struct {
	Class   Class
	Count   int
	Txns    []int  // the example's transactions (indexes into History.Txns)
	Cycle   []Step // the example's cycle, for the cycle classes
	Example string // the example in one line
}

// Result is what Check found.
type Result struct {
	Txns      int // transactions checked (committed and unknown)
	Anomalies []Anomaly
}

// Find returns the anomaly of class c, if found.
func (r Result) Find(c Class) (Anomaly, bool) {
	for _, a := range r.Anomalies {
		if a.Class == c {
			return a, true
		}
	}
	return Anomaly{}, false
}

// edge is one edge of the graph; a and b are the global indexes of the
// micro-ops that made it (in From and in To), -1 for order edges.
type edge struct {
	from, to int32
	a, b     int32
	typ      uint8
}

type kv struct{ key, val int64 }

type checker struct {
	h       *History
	opt     Options
	opTxn   []int32           // the txn of each micro-op
	write   map[kv]int32      // the micro-op that wrote (key, value): values are unique
	edges   []edge            // before they are grouped by from
	writers map[int64][]int32 // register: each key's writers (keyWriters)
	found   map[Class]*Anomaly
	scratch []int64 // internal\'s expected list, reused
}

// Check checks h: the version orders it can infer, the anomalies that
// need no cycle (G1a, G1b, internal, lost update, incompatible order), and
// the cycles of its dependency graph. Writes must be of values unique per
// key (the workloads write each value once); of a value written twice,
// the first write that may have committed counts (a retry may write again
// what its failed attempt wrote), and the others are ignored.
func Check(h *History, opt Options) Result {
	c := &checker{h: h, opt: opt, found: map[Class]*Anomaly{}}
	c.index()
	c.internal()
	switch h.Model {
	case ListAppend:
		c.listAppend()
	case Register:
		c.register()
	}
	c.order()
	c.cycles()
	r := Result{}
	for _, t := range h.Txns {
		if t.Outcome != Fail {
			r.Txns++
		}
	}
	for _, cl := range classOrder {
		for _, suffix := range []string{"", "-process", "-realtime"} {
			if a, ok := c.found[cl+Class(suffix)]; ok {
				r.Anomalies = append(r.Anomalies, *a)
			}
		}
	}
	return r
}

var classOrder = []Class{G0, G1a, G1b, G1c, GSingle, G2Item, GNonadjacent, LostUpdate, Internal, IncompatibleOrder}

func (c *checker) index() {
	h := c.h
	c.opTxn = make([]int32, len(h.Ops))
	for i := range c.opTxn {
		c.opTxn[i] = -1
	}
	n := 0
	for i, t := range h.Txns {
		for j := t.Off; j < t.Off+t.Len; j++ {
			c.opTxn[j] = int32(i)
		}
		n += int(t.Len)
	}
	c.write = make(map[kv]int32, n/2)
	for _, t := range h.Txns {
		for j := t.Off; j < t.Off+t.Len; j++ {
			op := &h.Ops[j]
			if op.Kind != Write {
				continue
			}
			// A value written again (a retry of a failed attempt that
			// wrote it too): the write that may have committed counts.
			k := kv{op.Key, op.Value}
			if w, dup := c.write[k]; !dup || h.Txns[c.opTxn[w]].Outcome == Fail && t.Outcome != Fail {
				c.write[k] = int32(j)
			}
		}
	}
}

// report counts one instance of cl, keeping the first example (its line
// made only then).
func (c *checker) report(cl Class, txns []int, cycle []Step, example func() string) {
	if a, ok := c.found[cl]; ok {
		a.Count++
		return
	}
	c.found[cl] = &Anomaly{Class: cl, Count: 1, Txns: txns, Cycle: cycle, Example: example()}
}

// laterWrite says whether the txn of write op w wrote w's key again after w.
func (c *checker) laterWrite(w int32) bool {
	t := &c.h.Txns[c.opTxn[w]]
	key := c.h.Ops[w].Key
	for j := uint32(w) + 1; j < t.Off+t.Len; j++ {
		if op := &c.h.Ops[j]; op.Kind == Write && op.Key == key {
			return true
		}
	}
	return false
}

// internal checks each committed txn's reads against its own earlier
// micro-ops on the key: a read after a read sees it (plus the txn's own
// appends between), a read after the txn's writes sees them.
func (c *checker) internal() {
	h := c.h
	for i, t := range h.Txns {
		if t.Outcome != OK {
			continue
		}
		ops := h.Ops[t.Off : t.Off+t.Len]
		for j := range ops {
			r := &ops[j]
			if r.Kind != Read {
				continue
			}
			if why := c.contradicts(ops, j); why != "" {
				c.report(Internal, []int{i}, nil, func() string { return fmt.Sprintf("T%d %s: %s", i, c.txnText(i), why) })
			}
		}
	}
}

func (c *checker) contradicts(ops []Op, j int) string {
	h, r := c.h, &ops[j]
	if h.Model == Register {
		for p := j - 1; p >= 0; p-- {
			o := &ops[p]
			if o.Key != r.Key {
				continue
			}
			if o.Kind == Write && (r.Len == 0 || r.Value != o.Value) {
				return fmt.Sprintf("read %d=%s after writing %d", r.Key, c.regText(r), o.Value)
			}
			if o.Kind == Read && (o.Len != r.Len || o.Value != r.Value) {
				return fmt.Sprintf("read %d=%s after reading %s", r.Key, c.regText(r), c.regText(o))
			}
			return ""
		}
		return ""
	}
	// ListAppend: the last read of the key before j, and the appends since.
	base := -1
	for p := j - 1; p >= 0; p-- {
		if ops[p].Key == r.Key && ops[p].Kind == Read {
			base = p
			break
		}
	}
	want := c.scratch[:0]
	if base >= 0 {
		want = append(want, h.List(&ops[base])...)
	}
	for p := base + 1; p < j; p++ {
		if ops[p].Key == r.Key && ops[p].Kind == Write {
			want = append(want, ops[p].Value)
		}
	}
	c.scratch = want
	got := h.List(r)
	if base >= 0 && !slices.Equal(got, want) || base < 0 && (len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want)) {
		return fmt.Sprintf("read %d %v, expected %s%v", r.Key, got, map[bool]string{true: "", false: "... "}[base >= 0], want)
	}
	return ""
}

func (c *checker) regText(o *Op) string {
	if o.Len == 0 {
		return "nil"
	}
	return fmt.Sprint(o.Value)
}

func (c *checker) add(from, to, a, b int32, typ uint8) {
	if from != to {
		c.edges = append(c.edges, edge{from: from, to: to, a: a, b: b, typ: typ})
	}
}

// readOf checks one committed read r (in txn) of the version written by
// w: G1a, G1b, else the wr edge. It says whether the read saw a committed
// version (a txn's final write), the only kind that makes edges.
func (c *checker) readOf(w, r int32, txn int32) bool {
	wt := c.opTxn[w]
	if wt == txn {
		return true
	}
	key, val := c.h.Ops[w].Key, c.h.Ops[w].Value
	switch {
	case c.h.Txns[wt].Outcome == Fail:
		c.report(G1a, []int{int(txn), int(wt)}, nil, func() string {
			return fmt.Sprintf("T%d %s read %d=%d, written by T%d %s (failed)", txn, c.txnText(int(txn)), key, val, wt, c.txnText(int(wt)))
		})
		return false
	case c.laterWrite(w):
		c.report(G1b, []int{int(txn), int(wt)}, nil, func() string {
			return fmt.Sprintf("T%d %s read %d=%d, an intermediate write of T%d %s", txn, c.txnText(int(txn)), key, val, wt, c.txnText(int(wt)))
		})
		return false
	}
	c.add(wt, txn, w, r, WR)
	return true
}

// listAppend infers each key's version order from its longest committed
// read (every other read must be a prefix of it), then adds ww between
// successive appends, wr from the last value a read saw, and rw from a
// read to the append after its last value.
func (c *checker) listAppend() {
	h := c.h
	longest := map[int64]int32{}
	for _, t := range h.Txns {
		if t.Outcome != OK {
			continue
		}
		for j := t.Off; j < t.Off+t.Len; j++ {
			op := &h.Ops[j]
			if op.Kind != Read {
				continue
			}
			if l, ok := longest[op.Key]; !ok || h.Ops[l].Len < op.Len {
				longest[op.Key] = int32(j)
			}
		}
	}
	// ww along each key's order; a value twice in it is an incompatible order.
	seen := make([]bool, len(h.Ops))
	keys := make([]int64, 0, len(longest))
	for k := range longest {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		l := longest[k]
		list := h.List(&h.Ops[l])
		prev := int32(-1)
		for _, v := range list {
			w, ok := c.write[kv{k, v}]
			if !ok {
				prev = -1
				continue
			}
			if seen[w] {
				c.report(IncompatibleOrder, []int{int(c.opTxn[l])}, nil, func() string {
					return fmt.Sprintf("T%d %s read %d twice in %d", c.opTxn[l], c.txnText(int(c.opTxn[l])), v, k)
				})
				break
			}
			seen[w] = true
			if c.h.Txns[c.opTxn[w]].Outcome == Fail {
				prev = -1
				continue
			}
			if prev >= 0 {
				c.add(c.opTxn[prev], c.opTxn[w], prev, w, WW)
			}
			prev = w
		}
	}
	// Each read: a prefix of the longest; wr from its last value; rw to the next.
	type rmw struct {
		key  int64
		n    uint32
		txn  int32
		read int32
	}
	var rmws []rmw
	for i, j := range h.committedReads() {
		op := &h.Ops[j]
		l := longest[op.Key]
		full := h.List(&h.Ops[l])
		got := h.List(op)
		if !slices.Equal(full[:len(got)], got) {
			c.report(IncompatibleOrder, []int{i, int(c.opTxn[l])}, nil, func() string {
				return fmt.Sprintf("T%d read %d %v, T%d read %d %v: neither is a prefix of the other", i, op.Key, got, c.opTxn[l], op.Key, full)
			})
			continue
		}
		if len(got) > 0 {
			if w, ok := c.write[kv{op.Key, got[len(got)-1]}]; ok && !c.readOf(w, int32(j), int32(i)) {
				continue
			}
		}
		if len(got) < len(full) {
			if w, ok := c.write[kv{op.Key, full[len(got)]}]; ok && h.Txns[c.opTxn[w]].Outcome != Fail {
				c.add(int32(i), c.opTxn[w], int32(j), w, RW)
			}
		}
		if c.externalRMW(int32(i), j) {
			rmws = append(rmws, rmw{op.Key, op.Len, int32(i), int32(j)})
		}
	}
	slices.SortFunc(rmws, func(a, b rmw) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.n, b.n), cmp.Compare(a.txn, b.txn))
	})
	for i := 1; i < len(rmws); i++ {
		a, b := rmws[i-1], rmws[i]
		if a.key == b.key && a.n == b.n && (i < 2 || rmws[i-2].key != a.key || rmws[i-2].n != a.n) {
			c.report(LostUpdate, []int{int(a.txn), int(b.txn)}, nil, func() string {
				return fmt.Sprintf("T%d %s and T%d %s both read %d %v and both appended to it", a.txn, c.txnText(int(a.txn)), b.txn, c.txnText(int(b.txn)), a.key, h.List(&h.Ops[a.read]))
			})
		}
	}
}

// externalRMW says whether micro-op j (a read) is txn i's first micro-op
// on its key and the txn writes the key later: a read-modify-write.
func (c *checker) externalRMW(i int32, j uint32) bool {
	if !c.firstOnKey(i, j) {
		return false
	}
	t, key := &c.h.Txns[i], c.h.Ops[j].Key
	for p := j + 1; p < t.Off+t.Len; p++ {
		if c.h.Ops[p].Key == key && c.h.Ops[p].Kind == Write {
			return true
		}
	}
	return false
}

// firstOnKey says whether micro-op j is txn i's first on its key (for a
// read: an external read).
func (c *checker) firstOnKey(i int32, j uint32) bool {
	t, key := &c.h.Txns[i], c.h.Ops[j].Key
	for p := t.Off; p < j; p++ {
		if c.h.Ops[p].Key == key {
			return false
		}
	}
	return true
}

// register infers what unique values allow: wr exactly (the writer of
// the value read); that the initial version (nothing read) precedes every
// write: rw from each reader of nothing to each writer of the key; and
// from each committed txn that read version r of a key before writing it,
// that r precedes its first write w: ww from r's writer to it, and rw
// from every other reader of r to it. Each inferred edge stands for a
// chain of direct ones through whatever versions lie between, with as
// many rw edges, so the cycles it closes are real and of its class.
func (c *checker) register() {
	h := c.h
	type rd struct {
		key, val int64
		found    bool
		txn      int32
		op       int32
		rmw      bool
	}
	var reads []rd
	for i, j := range h.committedReads() {
		op := &h.Ops[j]
		if op.Len == 1 {
			if w, ok := c.write[kv{op.Key, op.Value}]; ok && !c.readOf(w, int32(j), int32(i)) {
				continue
			}
		}
		if c.firstOnKey(int32(i), j) { // external reads only
			reads = append(reads, rd{op.Key, op.Value, op.Len == 1, int32(i), int32(j), c.externalRMW(int32(i), j)})
		}
	}
	slices.SortFunc(reads, func(a, b rd) int {
		return cmp.Or(cmp.Compare(a.key, b.key), boolCmp(a.found, b.found), cmp.Compare(a.val, b.val), cmp.Compare(a.txn, b.txn))
	})
	for lo := 0; lo < len(reads); {
		hi := lo + 1
		for hi < len(reads) && reads[hi].key == reads[lo].key && reads[hi].found == reads[lo].found && reads[hi].val == reads[lo].val {
			hi++
		}
		group := reads[lo:hi]
		var writers []rd
		for _, r := range group {
			if r.rmw {
				writers = append(writers, r)
			}
		}
		if len(writers) >= 2 {
			a, b := writers[0], writers[1]
			c.report(LostUpdate, []int{int(a.txn), int(b.txn)}, nil, func() string {
				return fmt.Sprintf("T%d %s and T%d %s both read %d=%s and both wrote it", a.txn, c.txnText(int(a.txn)), b.txn, c.txnText(int(b.txn)), a.key, c.regText(&h.Ops[a.op]))
			})
		}
		if !group[0].found {
			// Nothing read: the initial version, before every write.
			for _, w := range c.keyWriters(group[0].key) {
				for _, r := range group {
					c.add(r.txn, c.opTxn[w], r.op, w, RW)
				}
			}
		}
		for _, w := range writers {
			if !w.found {
				continue
			}
			wop := c.firstWrite(w.txn, w.key)
			if prev, ok := c.write[kv{w.key, w.val}]; ok && h.Txns[c.opTxn[prev]].Outcome != Fail {
				c.add(c.opTxn[prev], w.txn, prev, wop, WW)
			}
			for _, r := range group {
				c.add(r.txn, w.txn, r.op, wop, RW)
			}
		}
		lo = hi
	}
}

// keyWriters returns the first write of key by each txn that may have
// committed (ok or unknown), found once for all keys.
func (c *checker) keyWriters(key int64) []int32 {
	if c.writers == nil {
		c.writers = map[int64][]int32{}
		for i, t := range c.h.Txns {
			if t.Outcome == Fail {
				continue
			}
			for j := t.Off; j < t.Off+t.Len; j++ {
				if op := &c.h.Ops[j]; op.Kind == Write && c.firstWrite(int32(i), op.Key) == int32(j) {
					c.writers[op.Key] = append(c.writers[op.Key], int32(j))
				}
			}
		}
	}
	return c.writers[key]
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func (c *checker) firstWrite(txn int32, key int64) int32 {
	t := &c.h.Txns[txn]
	for p := t.Off; p < t.Off+t.Len; p++ {
		if c.h.Ops[p].Key == key && c.h.Ops[p].Kind == Write {
			return int32(p)
		}
	}
	return -1
}

// order adds process and real-time edges: from committed txns only (an
// unknown one may have committed any time later), to committed and
// unknown ones. Real time is its transitive reduction: each txn gets an
// edge from the txns that ended, unsuperseded, before it started.
func (c *checker) order() {
	h := c.h
	if c.opt.Process {
		last := map[int32]int32{}
		for i, t := range h.Txns { // in start order
			if t.Outcome == Fail {
				continue
			}
			if p, ok := last[t.Process]; ok && h.Txns[p].Outcome == OK {
				c.add(p, int32(i), -1, -1, Process)
			}
			last[t.Process] = int32(i)
		}
	}
	if c.opt.Realtime {
		type ev struct {
			at  int64
			end bool
			txn int32
		}
		evs := make([]ev, 0, 2*len(h.Txns))
		for i, t := range h.Txns {
			if t.Outcome == Fail {
				continue
			}
			evs = append(evs, ev{t.Start, false, int32(i)})
			if t.Outcome == OK {
				evs = append(evs, ev{t.End, true, int32(i)})
			}
		}
		// At one instant, starts before ends: touching is not "after".
		slices.SortFunc(evs, func(a, b ev) int {
			return cmp.Or(cmp.Compare(a.at, b.at), boolCmp(a.end, b.end), cmp.Compare(a.txn, b.txn))
		})
		// The frontier: txns ended and not yet followed by a txn that
		// ended too. A start gets an edge from each; an end replaces those
		// that ended before its txn started.
		var frontier []int32
		for _, e := range evs {
			if !e.end {
				for _, p := range frontier {
					c.add(p, e.txn, -1, -1, Realtime)
				}
				continue
			}
			start := h.Txns[e.txn].Start
			frontier = slices.DeleteFunc(frontier, func(x int32) bool { return h.Txns[x].End < start })
			frontier = append(frontier, e.txn)
		}
	}
}

// txnText is a txn in Elle's notation: "ok p1 [[:append 1 4] [:r 2 [7]]]".
func (c *checker) txnText(i int) string {
	var b strings.Builder
	t := &c.h.Txns[i]
	fmt.Fprintf(&b, "%s p%d ", t.Outcome, t.Process)
	writeEDNOps(&b, c.h, i, true)
	return b.String()
}

// committedReads yields each read of the committed transactions, in
// order: its transaction's index in h.Txns and its micro-op's in h.Ops.
func (h *History) committedReads() iter.Seq2[int, uint32] {
	return func(yield func(int, uint32) bool) {
		for i, t := range h.Txns {
			if t.Outcome != OK {
				continue
			}
			for j := t.Off; j < t.Off+t.Len; j++ {
				if h.Ops[j].Kind == Read && !yield(i, j) {
					return
				}
			}
		}
	}
}
