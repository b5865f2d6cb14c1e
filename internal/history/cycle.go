package history

import (
	"fmt"
	"slices"
	"strings"
)

// graph is the dependency graph in compressed rows: the edges out of
// node v are out[start[v]:start[v+1]].
type graph struct {
	start []int32
	out   []edge
}

func (c *checker) graph() graph {
	n := len(c.h.Txns)
	g := graph{start: make([]int32, n+1), out: make([]edge, len(c.edges))}
	for _, e := range c.edges {
		g.start[e.from+1]++
	}
	for v := 0; v < n; v++ {
		g.start[v+1] += g.start[v]
	}
	next := make([]int32, n)
	copy(next, g.start[:n])
	for _, e := range c.edges {
		g.out[next[e.from]] = e
		next[e.from]++
	}
	c.edges = nil
	return g
}

// sccs returns each node's strongly connected component (Tarjan's,
// without recursion) and the components of two nodes or more.
func (g graph) sccs() (comp []int32, big [][]int32) {
	n := len(g.start) - 1
	comp = make([]int32, n)
	index := make([]int32, n) // 0: unvisited; else visit order + 1
	low := make([]int32, n)
	onStack := make([]bool, n)
	var stack []int32
	type frame struct{ v, e int32 }
	var call []frame
	var counter, ncomp int32
	for root := 0; root < n; root++ {
		if index[root] != 0 {
			continue
		}
		call = append(call, frame{int32(root), g.start[root]})
		counter++
		index[root], low[root] = counter, counter
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.e < g.start[v+1] {
				w := g.out[f.e].to
				f.e++
				if index[w] == 0 {
					counter++
					index[w], low[w] = counter, counter
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, g.start[w]})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if u := call[len(call)-1].v; low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] == index[v] {
				var members []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					members = append(members, w)
					if w == v {
						break
					}
				}
				if len(members) > 1 {
					big = append(big, members)
				}
				ncomp++
			}
		}
	}
	return comp, big
}

// pattern is a kind of cycle searched for. A search's state is a txn and
// the pattern's counts so far (under 12 values); step gives the counts
// after an edge, or false when the pattern may not take it (first: the
// walk's first edge), and closes says whether counts make a cycle of it.
type pattern struct {
	class  Class
	first  uint8 // every cycle of it has an edge of this kind: searched from their tails
	order  bool  // needs an order edge: its class gets that edge's suffix
	step   func(c uint8, typ uint8, first bool) (uint8, bool)
	closes func(c uint8) bool
}

const orderEdges = Process | Realtime

// counted is a pattern over the edges allowed that counts rw edges (at
// most maxRW; capped at 2), whether a wr and an order edge were taken,
// and closes with at least minRW rw, minWR wr and, when order, an order
// edge.
func counted(class Class, first, allowed uint8, maxRW, minRW, minWR int, order bool) pattern {
	return pattern{class: class, first: first, order: order,
		step: func(c uint8, typ uint8, _ bool) (uint8, bool) {
			rw, wr, ord := c/4, c/2%2, c%2
			switch {
			case typ&allowed == 0:
				return 0, false
			case typ == RW:
				if int(rw)+1 > maxRW {
					return 0, false
				}
				rw = min(rw+1, 2)
			case typ == WR:
				wr = 1
			case typ&orderEdges != 0:
				ord = 1
			}
			return rw*4 + wr*2 + ord, true
		},
		closes: func(c uint8) bool {
			return int(c/4) >= minRW && int(c/2%2) >= minWR && (!order || c%2 == 1)
		},
	}
}

// nonadjacent is G-nonadjacent: two rw edges or more, no two of them
// consecutive, the last and the first included. Its counts: rw (capped
// at 2), whether the last edge was rw, whether the first was.
var nonadjacent = pattern{class: GNonadjacent, first: RW,
	step: func(c uint8, typ uint8, first bool) (uint8, bool) {
		rw, last, firstRW := c/4, c/2%2, c%2
		if typ&(WW|WR|RW) == 0 || typ == RW && last == 1 {
			return 0, false
		}
		last = 0
		if typ == RW {
			rw, last = min(rw+1, 2), 1
			if first {
				firstRW = 1
			}
		}
		return rw*4 + last*2 + firstRW, true
	},
	closes: func(c uint8) bool { return c/4 >= 2 && !(c/2%2 == 1 && c%2 == 1) },
}

// cycleKinds are the cycles counted: the edges each may use, its rw
// edges at most and at least, its wr edges at least.
var cycleKinds = []struct {
	class               Class
	first, allowed      uint8
	maxRW, minRW, minWR int
}{
	{G0, WW, WW, 0, 0, 0},
	{G1c, WR, WW | WR, 0, 0, 1},
	{GSingle, RW, WW | WR | RW, 1, 1, 0},
	{G2Item, RW, WW | WR | RW, 2, 2, 0},
}

// patterns are the searches, in order: each kind, G-nonadjacent, and with
// order edges asked each kind again through one of them at least.
func patterns(opt Options) []pattern {
	var ps []pattern
	for _, k := range cycleKinds {
		ps = append(ps, counted(k.class, k.first, k.allowed, k.maxRW, k.minRW, k.minWR, false))
	}
	ps = append(ps, nonadjacent)
	if opt.Process || opt.Realtime {
		for _, k := range cycleKinds {
			ps = append(ps, counted(k.class, orderEdges, k.allowed|orderEdges, k.maxRW, k.minRW, k.minWR, true))
		}
	}
	return ps
}

// searchBudget bounds the states one pattern's search visits in one
// component, so a history that is one huge cycle still checks in linear
// time; a class not found within it is not reported from that component.
const searchBudget = 1 << 22

type search struct {
	g       graph
	comp    []int32
	stamp   []int32 // per state: the search that visited it
	parent  []int32 // per state: the edge index that reached it
	from    []int32 // per state: the state it was reached from
	epoch   int32
	local   []int32 // per node: its index among its component's members
	members []int32
	queue   []int32
	visited int
}

func stateOf(v int32, c uint8) int32 { return v*12 + int32(c) }

func (c *checker) cycles() {
	g := c.graph()
	comp, big := g.sccs()
	if len(big) == 0 {
		return
	}
	s := &search{g: g, comp: comp, local: make([]int32, len(c.h.Txns))}
	ps := patterns(c.opt)
	for _, members := range big {
		id := comp[members[0]]
		s.use(members)
		found := map[Class]bool{}
		for _, p := range ps {
			s.visited = 0
			cyc := s.find(p, members, id)
			if cyc == nil {
				continue
			}
			cl := p.class
			if p.order {
				cl += "-process"
				for _, e := range cyc {
					if e.typ == Realtime {
						cl = p.class + "-realtime"
					}
				}
			}
			if found[cl] {
				continue
			}
			found[cl] = true
			if a, ok := c.found[cl]; ok {
				a.Count++
				continue
			}
			steps, txns, text := c.explain(cyc)
			c.report(cl, txns, steps, func() string { return text })
		}
	}
}

// find searches the component for a cycle of pattern p by BFS from each
// member with an edge of p's first kind out of it inside the component
// (every cycle of p passes through the tail of such an edge), until one
// closes or the budget is spent.
func (s *search) find(p pattern, members []int32, id int32) []edge {
	for _, start := range members {
		if s.visited > searchBudget {
			return nil
		}
		if !s.hasOut(start, id, p.first) {
			continue
		}
		if cyc := s.bfs(p, start, id); cyc != nil {
			return cyc
		}
	}
	return nil
}

func (s *search) hasOut(v, id int32, typ uint8) bool {
	for _, e := range s.g.out[s.g.start[v]:s.g.start[v+1]] {
		if e.typ&typ != 0 && s.comp[e.to] == id {
			return true
		}
	}
	return false
}

// use makes members the component searched: the state arrays sized for
// it (reused: they grow to the largest component only).
func (s *search) use(members []int32) {
	s.members = members
	for i, v := range members {
		s.local[v] = int32(i)
	}
	if n := 12 * len(members); n > len(s.stamp) {
		s.stamp, s.parent, s.from = make([]int32, n), make([]int32, n), make([]int32, n)
		s.epoch = 0
	}
}

func (s *search) bfs(p pattern, start, id int32) []edge {
	s.epoch++
	s.queue = s.queue[:0]
	st := stateOf(s.local[start], 0)
	s.stamp[st], s.parent[st] = s.epoch, -1
	s.queue = append(s.queue, st)
	for qi := 0; qi < len(s.queue); qi++ {
		cur := s.queue[qi]
		s.visited++
		v := s.members[cur/12]
		for i := s.g.start[v]; i < s.g.start[v+1]; i++ {
			e := s.g.out[i]
			if s.comp[e.to] != id {
				continue
			}
			c, ok := p.step(uint8(cur%12), e.typ, qi == 0)
			if !ok {
				continue
			}
			if e.to == start {
				if p.closes(c) {
					if cyc := s.cycle(cur, e); cyc != nil {
						return cyc
					}
				}
				continue // the start only closes a cycle
			}
			ns := stateOf(s.local[e.to], c)
			if s.stamp[ns] == s.epoch {
				continue
			}
			s.stamp[ns], s.parent[ns], s.from[ns] = s.epoch, i, cur
			s.queue = append(s.queue, ns)
		}
	}
	return nil
}

// cycle walks the parents back from state cur, closed by e, to the
// start; nil when the walk passes a node twice (not a simple cycle: its
// simple parts have fewer of what the pattern counts, and are found as
// their own classes).
func (s *search) cycle(cur int32, e edge) []edge {
	cyc := []edge{e}
	for at := cur; s.parent[at] >= 0; at = s.from[at] {
		cyc = append(cyc, s.g.out[s.parent[at]])
	}
	seen := make(map[int32]bool, len(cyc))
	for _, c := range cyc {
		if seen[c.from] {
			return nil
		}
		seen[c.from] = true
	}
	slices.Reverse(cyc)
	// Begin at the lowest txn, so one cycle always reads the same.
	low := 0
	for i, c := range cyc {
		if c.from < cyc[low].from {
			low = i
		}
	}
	return append(cyc[low:], cyc[:low]...)
}

// explain turns a cycle's edges into steps, its txns, and one line:
// "T1 -ww 1: 3<4-> T2 -rw 2: read [7], 8 next-> T1; T1 = ok p0 [...]; T2 = ...".
func (c *checker) explain(cyc []edge) ([]Step, []int, string) {
	var b strings.Builder
	steps := make([]Step, len(cyc))
	txns := make([]int, len(cyc))
	for i, e := range cyc {
		st := Step{From: int(e.from), To: int(e.to), Type: e.typ}
		switch e.typ {
		case WW:
			st.Key = c.h.Ops[e.b].Key
			st.Text = fmt.Sprintf("ww %d: %d<%d", st.Key, c.h.Ops[e.a].Value, c.h.Ops[e.b].Value)
		case WR:
			st.Key = c.h.Ops[e.a].Key
			st.Text = fmt.Sprintf("wr %d=%d", st.Key, c.h.Ops[e.a].Value)
		case RW:
			st.Key = c.h.Ops[e.a].Key
			st.Text = fmt.Sprintf("rw %d: read %s, %d later", st.Key, c.readText(&c.h.Ops[e.a]), c.h.Ops[e.b].Value)
		default:
			st.Text = edgeName(e.typ)
		}
		steps[i], txns[i] = st, int(e.from)
		if i == 0 {
			fmt.Fprintf(&b, "T%d", e.from)
		}
		fmt.Fprintf(&b, " -%s-> T%d", st.Text, e.to)
	}
	for _, t := range txns {
		fmt.Fprintf(&b, "; T%d = %s", t, c.txnText(t))
	}
	return steps, txns, b.String()
}

func (c *checker) readText(op *Op) string {
	if c.h.Model == ListAppend {
		return fmt.Sprint(c.h.List(op))
	}
	return c.regText(op)
}
