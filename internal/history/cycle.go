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

// pattern is a kind of cycle searched for: the edges it may use and what
// its counts must be when it closes. The state of a search is a node and
// its counts so far (rw capped at 2, wr and order edges at 1).
type pattern struct {
	class   Class
	allowed uint8
	maxRW   int // rw edges allowed (2: any)
	minRW   int
	minWR   int
	order   bool // must use an order edge
	first   uint8
}

const orderEdges = Process | Realtime

func patterns(opt Options) []pattern {
	base := []pattern{
		{class: G0, allowed: WW, maxRW: 0, first: WW},
		{class: G1c, allowed: WW | WR, maxRW: 0, minWR: 1, first: WR},
		{class: GSingle, allowed: WW | WR | RW, maxRW: 1, minRW: 1, first: RW},
		{class: G2Item, allowed: WW | WR | RW, maxRW: 2, minRW: 2, first: RW},
	}
	if !opt.Process && !opt.Realtime {
		return base
	}
	ps := base
	for _, p := range base {
		p.allowed |= orderEdges
		p.order = true
		p.first = orderEdges
		ps = append(ps, p)
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

func stateOf(v int32, rw, wr, ord int) int32 { return v*12 + int32(rw*4+wr*2+ord) }

func (c *checker) cycles() {
	g := c.graph()
	comp, big := g.sccs()
	if len(big) == 0 {
		return
	}
	s := &search{g: g, comp: comp, local: make([]int32, len(c.h.Txns))}
	for _, members := range big {
		id := comp[members[0]]
		s.use(members)
		found := map[Class]bool{}
		for _, p := range patterns(c.opt) {
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
	st := stateOf(s.local[start], 0, 0, 0)
	s.stamp[st], s.parent[st] = s.epoch, -1
	s.queue = append(s.queue, st)
	for qi := 0; qi < len(s.queue); qi++ {
		cur := s.queue[qi]
		s.visited++
		v := s.members[cur/12]
		rw, wr, ord := int(cur%12/4), int(cur%4/2), int(cur%2)
		for i := s.g.start[v]; i < s.g.start[v+1]; i++ {
			e := s.g.out[i]
			if e.typ&p.allowed == 0 || s.comp[e.to] != id {
				continue
			}
			nrw, nwr, nord := rw, wr, ord
			switch {
			case e.typ == RW:
				nrw = min(rw+1, 2)
				if rw+1 > p.maxRW {
					continue
				}
			case e.typ == WR:
				nwr = 1
			case e.typ&orderEdges != 0:
				nord = 1
			}
			if e.to == start {
				if nrw >= p.minRW && nwr >= p.minWR && (!p.order || nord == 1) {
					if cyc := s.cycle(cur, e); cyc != nil {
						return cyc
					}
				}
				continue // the start only closes a cycle
			}
			ns := stateOf(s.local[e.to], nrw, nwr, nord)
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
