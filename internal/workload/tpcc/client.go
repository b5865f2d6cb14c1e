package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// Op indexes, in opNames' order.
const (
	iNewOrder = iota
	iPayment
	iOrderStatus
	iDelivery
	iStockLevel
)

// client is one terminal (clause 5.2.2): a home warehouse, a district for
// Stock-Level, and a deck of transactions dealt one per cycle. Terminals
// are dealt to the active warehouses in turn, so any number of them is
// spread evenly: terminal id works on warehouse id mod W and, within it,
// district (id div W) mod 10, and ten per warehouse are the
// specification's one per district.
type client struct {
	w        *Workload
	rng      *rand.Rand
	ops      []workload.Op
	home     int // warehouse
	district int // Stock-Level's district
	deck     []int
	dealt    int
	chosen   int
	think    time.Duration // the think time after the last transaction

	// The inputs of this cycle's transaction (clause 2.x.1).
	d, cw, cd, cid int
	byName         bool
	last           string
	lines          []line
	allLocal       int
	rollback       bool // the last line's item is unused: roll back
	amountCents    int64
	carrier        int
	threshold      int

	// Scan targets and arguments, reused.
	ids   []int64
	sink  [16]any
	args  []any
	found []orderLine
	buf   []byte // --implementation procedures' lists
}

// line is one order line of a New-Order.
type line struct {
	item, supply, quantity int
}

func newClient(w *Workload, id int, rng *rand.Rand) *client {
	c := &client{
		w: w, rng: rng,
		home:     id%w.activeWarehouses() + 1,
		district: id/w.activeWarehouses()%terminalsPerWarehouse + 1,
		lines:    make([]line, 0, maxOrderLines),
		found:    make([]orderLine, maxOrderLines),
	}
	for i, n := range w.mix {
		for range n {
			c.deck = append(c.deck, i)
		}
	}
	c.dealt = len(c.deck)
	// Each run inside a transaction of its own (workload.InTxn) but a
	// batched Stock-Level, one statement, a batched Order-Status (one
	// statement where the dialect allows, else its own transaction), and
	// the procedures' calls.
	in := workload.InTxn
	c.ops = []workload.Op{
		{Name: opNewOrder, Run: in(c.newOrder)},
		{Name: opPayment, Run: in(c.payment)},
		{Name: opOrderStatus, Run: in(c.orderStatus)},
		{Name: opDelivery, Run: in(c.delivery)},
		{Name: opStockLevel, Run: in(c.stockLevel)},
	}
	// The other implementations' transactions, in opNames' order.
	other := map[string][5]func(context.Context, target.Conn) error{
		implBatched:    {in(c.newOrderBatched), in(c.paymentBatched), c.orderStatusBatched, in(c.deliveryBatched), c.stockLevelBatched},
		implProcedures: {c.newOrderProc, c.paymentProc, c.orderStatusProc, c.deliveryProc, c.stockLevelProc},
	}
	if runs, ok := other[w.implementation]; ok {
		for i := range c.ops {
			c.ops[i].Run = runs[i]
		}
	}
	return c
}

func (c *client) Ops() []workload.Op { return c.ops }

var _ workload.Chooser = (*client)(nil)

// Choose deals the next transaction from the deck, shuffled anew each time
// it runs out (clause 5.2.4.2).
func (c *client) Choose() int {
	if c.dealt == len(c.deck) {
		c.rng.Shuffle(len(c.deck), func(i, j int) { c.deck[i], c.deck[j] = c.deck[j], c.deck[i] })
		c.dealt = 0
	}
	c.chosen = c.deck[c.dealt]
	c.dealt++
	return c.chosen
}

// NextCycle draws the chosen transaction's inputs and returns the pause
// before it: the think time after the previous transaction and this one's
// keying time (clause 5.2.5.7), none with --wait=false.
func (c *client) NextCycle() time.Duration {
	switch c.chosen {
	case iNewOrder:
		c.newOrderInput()
	case iPayment:
		c.paymentInput()
	case iOrderStatus:
		c.d = uniform(c.rng, 1, districts)
		c.cw, c.cd = c.home, c.d
		c.customerInput()
	case iDelivery:
		c.carrier = uniform(c.rng, 1, 10)
	case iStockLevel:
		c.threshold = uniform(c.rng, 10, 20)
	}
	if !c.w.wait {
		return 0
	}
	pause := c.think + keying[c.chosen]
	c.think = thinkTime(c.rng, thinkMean[c.chosen])
	return pause
}

// thinkTime is a negative exponential think time of the mean, at most ten
// times the mean (clause 5.2.5.4).
func thinkTime(r *rand.Rand, mean time.Duration) time.Duration {
	x := -math.Log(1-r.Float64()) * float64(mean)
	return time.Duration(min(x, 10*float64(mean)))
}

// remoteWarehouse is a warehouse other than the terminal's, among all
// loaded ones.
func (c *client) remoteWarehouse() int {
	n := c.w.sc.warehouses
	o := uniform(c.rng, 1, n-1)
	if o >= c.home {
		o++
	}
	return o
}

// customerInput picks the customer of a Payment or an Order-Status: by
// last name 60% of the time, else by id (clause 2.5.1.2).
func (c *client) customerInput() {
	w := c.w
	c.byName = uniform(c.rng, 1, 100) <= 60
	if c.byName {
		c.last = lastName(nurand(c.rng, aLast, w.run.last, 0, w.lastNames-1))
		return
	}
	c.cid = nurand(c.rng, aCID, w.run.cid, 1, w.sc.customers)
}

func (c *client) newOrderInput() {
	w := c.w
	c.d = uniform(c.rng, 1, districts)
	c.cid = nurand(c.rng, aCID, w.run.cid, 1, w.sc.customers)
	n := uniform(c.rng, minOrderLines, maxOrderLines)
	c.rollback = uniform(c.rng, 1, 100) == 1
	c.lines = c.lines[:0]
	c.allLocal = 1
	for i := range n {
		l := line{item: c.newItem(), supply: c.home, quantity: uniform(c.rng, 1, 10)}
		if i == n-1 && c.rollback {
			l.item = w.sc.items + 1 // an unused item (clause 2.4.1.5)
		}
		if w.sc.warehouses > 1 && uniform(c.rng, 1, 100) == 1 {
			l.supply = c.remoteWarehouse()
			c.allLocal = 0
		}
		c.lines = append(c.lines, l)
	}
	// Stock rows are locked in one order, so New-Orders do not deadlock
	// on each other; the unused item, the largest id, stays last.
	slices.SortFunc(c.lines, func(a, b line) int {
		if a.item == w.sc.items+1 || b.item == w.sc.items+1 {
			return a.item - b.item
		}
		if a.supply != b.supply {
			return a.supply - b.supply
		}
		return a.item - b.item
	})
}

// newItem draws an order line's item, one the order does not have yet:
// the lines of an order are distinct items, so that one statement can
// update all of their stock rows.
func (c *client) newItem() int {
	w := c.w
	for {
		item := nurand(c.rng, aItem, w.run.item, 1, w.sc.items)
		if !slices.ContainsFunc(c.lines, func(l line) bool { return l.item == item }) {
			return item
		}
	}
}

func (c *client) paymentInput() {
	c.d = uniform(c.rng, 1, districts)
	c.cw, c.cd = c.home, c.d
	if c.w.sc.warehouses > 1 && uniform(c.rng, 1, 100) > 85 {
		c.cw, c.cd = c.remoteWarehouse(), uniform(c.rng, 1, districts)
	}
	c.customerInput()
	c.amountCents = int64(uniform(c.rng, 100, 500000))
}

// sinks are n scan targets whose values the transaction does not use.
func (c *client) sinks(n int) []any {
	for i := range n {
		c.sink[i] = &c.sink[i]
	}
	return c.sink[:n]
}

// countRows scans each of rows into dest() (made anew for each row, as
// sinks are) and closes them; it returns how many there were.
func countRows(rows target.Rows, dest func() []any) (n int, err error) {
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest()...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// newOrder is the New-Order transaction (clause 2.4.2).
func (c *client) newOrder(ctx context.Context, conn target.Conn) error {
	w, s := c.w, &c.w.sql
	var wTax, dTax, discount float64
	var oid int64
	var last, credit string
	if err := target.QueryRow(ctx, conn, s.noWarehouse, []any{c.home}, &wTax); err != nil {
		return err
	}
	if err := updateRow(ctx, conn, s.noDistrict, s.read(s.noDistrict), []any{c.home, c.d}, &oid, &dTax); err != nil {
		return err
	}
	if err := target.QueryRow(ctx, conn, s.noCustomer, []any{c.home, c.d, c.cid}, &discount, &last, &credit); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, s.noOrder, oid, c.d, c.home, c.cid, len(c.lines), c.allLocal); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, s.noNewOrder, oid, c.d, c.home); err != nil {
		return err
	}
	for i, l := range c.lines {
		var price float64
		var name, idata string
		err := target.QueryRow(ctx, conn, s.noItem, []any{l.item}, &price, &name, &idata)
		if errors.Is(err, target.ErrNoRow) && l.item == w.sc.items+1 {
			// The business rollback of clause 2.4.2.3: a completed
			// New-Order, not an error.
			if err := conn.Rollback(ctx); err != nil {
				return err
			}
			w.rollbacks.Add(1)
			return nil
		}
		if err != nil {
			return fmt.Errorf("item %d: %w", l.item, err)
		}
		remote := 0
		if l.supply != c.home {
			remote = 1
		}
		var quantity int64
		var sdata, dist string
		if err := updateRow(ctx, conn, w.stockSQL[c.d-1], w.stockRead[c.d-1], []any{l.supply, l.item, l.quantity, remote}, &quantity, &sdata, &dist); err != nil {
			return fmt.Errorf("stock of item %d in warehouse %d: %w", l.item, l.supply, err)
		}
		amount := float64(int64(l.quantity)*int64(math.Round(price*100))) / 100
		args := []any{oid, c.d, c.home, i + 1, l.item, l.supply, l.quantity, amount, dist}
		if i < len(c.lines)-1 {
			if _, err := conn.Exec(ctx, s.noLine, args...); err != nil {
				return err
			}
			continue
		}
		if _, err := conn.ExecCommit(ctx, s.noLine, args...); err != nil {
			c.unknown(err, 0)
			return err
		}
	}
	w.newOrders.Add(1)
	return nil
}

// committed ends an op at its commit, which returned err: an error
// fails it (unknown: one more commit of unknown outcome when it is one,
// with the payment of cents it carried); else book counts n more.
func (c *client) committed(err error, cents int64, book *atomic.Int64, n int64) error {
	if err != nil {
		c.unknown(err, cents)
		return err
	}
	book.Add(n)
	return nil
}

// unknown counts a failed commit whose outcome is unknown, with the
// payment it carried.
func (c *client) unknown(err error, paidCents int64) {
	if target.CommitOutcomeUnknown(err) {
		c.w.unknownCommits.Add(1)
		c.w.unknownPaidCents.Add(paidCents)
	}
}

// customerByName finds the customer of a Payment or Order-Status given by
// last name: the middle one of those ordered by first name (clause
// 2.5.2.2), n/2 rounded up counting from 1.
func (c *client) customerByName(ctx context.Context, conn target.Conn, sql string) error {
	rows, err := conn.Query(ctx, sql, c.cw, c.cd, c.last)
	if err != nil {
		return err
	}
	defer rows.Close()
	c.ids = c.ids[:0]
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		c.ids = append(c.ids, id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(c.ids) == 0 {
		return fmt.Errorf("no customer named %s in district %d of warehouse %d", c.last, c.cd, c.cw)
	}
	c.cid = int(c.ids[(len(c.ids)-1)/2])
	return nil
}

// payment is the Payment transaction (clause 2.5.2).
func (c *client) payment(ctx context.Context, conn target.Conn) error {
	s := &c.w.sql
	amount := float64(c.amountCents) / 100
	var wName, dName string
	dest := append([]any{&wName}, c.sinks(5)...)
	if err := updateRow(ctx, conn, s.payWarehouse, s.read(s.payWarehouse), []any{c.home, amount}, dest...); err != nil {
		return err
	}
	dest = append([]any{&dName}, c.sinks(5)...)
	if err := updateRow(ctx, conn, s.payDistrict, s.read(s.payDistrict), []any{c.home, c.d, amount}, dest...); err != nil {
		return err
	}
	return c.payCustomer(ctx, conn, wName, dName)
}

// payCustomer is the rest of a Payment after its warehouse and district:
// the customer's update and the history row, with the commit.
func (c *client) payCustomer(ctx context.Context, conn target.Conn, wName, dName string) error {
	s := &c.w.sql
	amount := float64(c.amountCents) / 100
	if c.byName {
		if err := c.customerByName(ctx, conn, s.payByName); err != nil {
			return err
		}
	}
	bad := fmt.Sprintf("%d %d %d %d %d %s | ", c.cid, c.cd, c.cw, c.d, c.home, cents(c.amountCents))
	if err := updateRow(ctx, conn, s.payCustomer, s.read(s.payCustomer), []any{c.cw, c.cd, c.cid, amount, bad}, c.sinks(14)...); err != nil {
		return fmt.Errorf("customer %d of district %d, warehouse %d: %w", c.cid, c.cd, c.cw, err)
	}
	_, err := conn.ExecCommit(ctx, s.payHistory, c.cid, c.cd, c.cw, c.d, c.home, amount, wName+"    "+dName)
	return c.committed(err, c.amountCents, &c.w.paidCents, c.amountCents)
}

// orderStatus is the Order-Status transaction (clause 2.6.2).
func (c *client) orderStatus(ctx context.Context, conn target.Conn) error {
	s := &c.w.sql
	if c.byName {
		if err := c.customerByName(ctx, conn, s.osByName); err != nil {
			return err
		}
	}
	if err := target.QueryRow(ctx, conn, s.osCustomer, []any{c.cw, c.cd, c.cid}, c.sinks(4)...); err != nil {
		return fmt.Errorf("customer %d of district %d, warehouse %d: %w", c.cid, c.cd, c.cw, err)
	}
	var oid int64
	dest := append([]any{&oid}, c.sinks(2)...)
	if err := target.QueryRow(ctx, conn, s.osOrder, []any{c.cw, c.cd, c.cid}, dest...); err != nil {
		return fmt.Errorf("last order of customer %d of district %d, warehouse %d: %w", c.cid, c.cd, c.cw, err)
	}
	rows, err := conn.Query(ctx, s.osLines, c.cw, c.cd, oid)
	if err != nil {
		return err
	}
	n, err := countRows(rows, func() []any { return c.sinks(5) })
	if err != nil {
		return err
	}
	if n < minOrderLines {
		return fmt.Errorf("order %d of district %d, warehouse %d has %d order lines", oid, c.cd, c.cw, n)
	}
	return conn.Commit(ctx)
}

// delivery is the Delivery transaction (clause 2.7.4): the oldest new
// order of each of the warehouse's ten districts, in one transaction. A
// district without one is skipped.
func (c *client) delivery(ctx context.Context, conn target.Conn) error {
	s := &c.w.sql
	for d := 1; d <= districts; d++ {
		var oid, cid int64
		if err := target.QueryRow(ctx, conn, s.dlOldest, []any{c.home, d}, &oid); err != nil {
			return err
		}
		if oid == 0 {
			continue
		}
		n, err := conn.Exec(ctx, s.dlDelete, c.home, d, oid)
		if err != nil {
			return err
		}
		if n == 0 {
			continue // delivered by another terminal meanwhile
		}
		if err := updateRow(ctx, conn, s.dlOrder, s.read(s.dlOrder), []any{c.home, d, oid, c.carrier}, &cid); err != nil {
			return fmt.Errorf("order %d of district %d, warehouse %d: %w", oid, d, c.home, err)
		}
		if _, err := conn.Exec(ctx, s.dlLines, c.home, d, oid); err != nil {
			return err
		}
		if n, err := conn.Exec(ctx, s.dlCustomer, c.home, d, oid, cid); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("customer %d of district %d, warehouse %d: %d rows updated", cid, d, c.home, n)
		}
	}
	return c.committed(conn.Commit(ctx), 0, &c.w.deliveries, 1)
}

// stockLevel is the Stock-Level transaction (clause 2.8.2): the recently
// sold items of the terminal's district whose stock is under the
// threshold.
func (c *client) stockLevel(ctx context.Context, conn target.Conn) error {
	s := &c.w.sql
	var next, low int64
	if err := target.QueryRow(ctx, conn, s.slDistrict, []any{c.home, c.district}, &next); err != nil {
		return err
	}
	if err := target.QueryRow(ctx, conn, s.slCount, []any{c.home, c.district, next, c.threshold}, &low); err != nil {
		return err
	}
	return conn.Commit(ctx)
}

// updateRow runs update, an UPDATE ... RETURNING, into dest; where the
// dialect has no such statement (read is not ""), update without its
// RETURNING, then read, in the same transaction. A row not found is
// target.ErrNoRow either way.
func updateRow(ctx context.Context, conn target.Conn, update, read string, args []any, dest ...any) error {
	if read == "" {
		return target.QueryRow(ctx, conn, update, args, dest...)
	}
	n, err := conn.Exec(ctx, update, args...)
	if err != nil {
		return err
	}
	if n == 0 {
		return target.ErrNoRow
	}
	return target.QueryRow(ctx, conn, read, args, dest...)
}
