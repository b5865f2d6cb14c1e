package tpcc

import (
	"maps"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// inputClient is terminal id of a workload at the specification's scale
// with two warehouses, without a database.
func inputClient(t *testing.T, id int, args ...string) *client {
	t.Helper()
	w, err := parseWorkload(append([]string{"--warehouses", "2"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	w.run = runConstants(stream(1, "nurand-run", 0), loadConstants(stream(1, "nurand", 0)))
	w.lastNames = names
	return newClient(w, id, rand.New(rand.NewPCG(3, 4)))
}

// near reports whether got is within tol of want.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestInputs draws many inputs of each transaction and expects the
// specification's shares: 1% of New-Orders rolled back on an unused item
// (always the last line), 1% of order lines remote, 60% of Payments and
// Order-Statuses by last name, 15% of Payments remote; ids in range, and
// no item twice in one order (one statement updates all its stock rows).
func TestInputs(t *testing.T) {
	const n = 100_000
	c := inputClient(t, 13)
	if c.home != 2 || c.district != 7 {
		t.Fatalf("terminal 13 on warehouse %d, district %d", c.home, c.district)
	}
	var rollbacks, lines, remoteLines, byName, remotePay int
	for range n {
		c.chosen = iNewOrder
		c.NextCycle()
		if c.cid < 1 || c.cid > specCustomers || len(c.lines) < minOrderLines || len(c.lines) > maxOrderLines {
			t.Fatalf("customer %d, %d lines", c.cid, len(c.lines))
		}
		for i, l := range c.lines {
			if c.lineOf(int64(l.item), 0) != i {
				t.Fatalf("item %d twice in one order: %+v", l.item, c.lines)
			}
			if l.item == specItems+1 {
				if i != len(c.lines)-1 {
					t.Fatalf("the unused item is line %d of %d", i+1, len(c.lines))
				}
				rollbacks++
			} else if l.item < 1 || l.item > specItems {
				t.Fatalf("item %d", l.item)
			}
			if l.supply != c.home {
				remoteLines++
			}
		}
		lines += len(c.lines)
		c.chosen = iPayment
		c.NextCycle()
		if c.byName {
			byName++
		}
		if c.cw != c.home {
			remotePay++
		}
		if c.amountCents < 100 || c.amountCents > 500_000 {
			t.Fatalf("payment of %d cents", c.amountCents)
		}
	}
	for _, s := range []struct {
		what      string
		got, want float64
	}{
		{"rolled-back New-Orders", float64(rollbacks) / n, 0.01},
		{"remote order lines", float64(remoteLines) / float64(lines), 0.01},
		{"Payments by last name", float64(byName) / n, 0.60},
		{"remote Payments", float64(remotePay) / n, 0.15},
	} {
		if !near(s.got, s.want, s.want/10) {
			t.Errorf("%s: %.4f, want %.2f", s.what, s.got, s.want)
		}
	}
}

// TestTerminalsSpread: the terminals of a run are dealt to the active
// warehouses in turn, each with a home district of its own: 8 on 2
// warehouses are 4 on each (districts 1 to 4), 20 are the specification's
// ten per warehouse, one per district; --active-warehouses 1 puts all on
// the first.
func TestTerminalsSpread(t *testing.T) {
	for _, tt := range []struct {
		terminals int
		args      []string
		want      map[int]int // terminals per home warehouse
	}{
		{8, nil, map[int]int{1: 4, 2: 4}},
		{20, nil, map[int]int{1: 10, 2: 10}},
		{8, []string{"--active-warehouses", "1"}, map[int]int{1: 8}},
	} {
		homes := map[int]int{}
		seats := map[[2]int]bool{}
		for id := range tt.terminals {
			c := inputClient(t, id, tt.args...)
			homes[c.home]++
			seats[[2]int{c.home, c.district}] = true
		}
		if !maps.Equal(homes, tt.want) || len(seats) != tt.terminals {
			t.Errorf("%d terminals %q: per warehouse %v, want %v; %d distinct (warehouse, district) of %d", tt.terminals, tt.args, homes, tt.want, len(seats), tt.terminals)
		}
	}
}

// TestWaits: a terminal waits the keying time of the transaction it is
// about to run and the think time after the previous one: negative
// exponential around the mean, never above ten times it; --wait=false
// waits nothing.
func TestWaits(t *testing.T) {
	c := inputClient(t, 0, "--mix", "0,0,0,0,1") // Stock-Level only: keying 2 s, think 5 s
	c.Choose()
	if p := c.NextCycle(); p != 2*time.Second {
		t.Fatalf("first pause %v, want the keying time alone", p)
	}
	const n = 20_000
	var sum time.Duration
	for range n {
		c.Choose()
		think := c.think
		p := c.NextCycle()
		if p != think+2*time.Second {
			t.Fatalf("pause %v, want think %v + keying 2s", p, think)
		}
		if think > 50*time.Second {
			t.Fatalf("think %v over ten times the mean", think)
		}
		sum += think
	}
	if mean := sum / n; mean < 4700*time.Millisecond || mean > 5300*time.Millisecond {
		t.Errorf("mean think %v, want about 5s", mean)
	}
	c = inputClient(t, 0, "--wait=false")
	for range 100 {
		c.Choose()
		if p := c.NextCycle(); p != 0 {
			t.Fatalf("pause %v with --wait=false", p)
		}
	}
}
