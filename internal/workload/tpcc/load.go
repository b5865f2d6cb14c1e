package tpcc

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"github.com/txnbench/txnbench/internal/target"
)

// Cardinalities of clause 1.2 and 4.3.3.1 that no flag changes.
const (
	districts     = 10   // per warehouse
	minOrderLines = 5    // per order
	maxOrderLines = 15   // per order
	names         = 1000 // last names made from the syllables
)

// loadTime is the entry, delivery and payment date of the loaded rows,
// fixed so that the data depends on the seed alone.
const loadTime = "2025-01-01T00:00:00.000Z"

// scale is the size of the data: the specification's, or smaller for tests.
type scale struct {
	warehouses int
	items      int // item rows, and stock rows per warehouse
	customers  int // customers, history rows and orders per district
}

// delivered is the number of each district's loaded orders that were
// delivered: the first 2,100 of 3,000, the rest being new orders
// (clause 4.3.3.1), in proportion for a smaller scale.
func (s scale) delivered() int { return s.customers * 7 / 10 }

// stream is the random stream of one part of the load: the same seed gives
// the same rows whatever order the parts are loaded in.
func stream(seed uint64, part string, w int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(part))
	return rand.New(rand.NewPCG(seed, h.Sum64()^uint64(w)<<32))
}

// gen writes random fields of one part of the load.
type gen struct {
	r   *rand.Rand
	buf []byte
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// astring is a random alphanumeric string of x to y characters
// (clause 4.3.2.2).
func (g *gen) astring(x, y int) string {
	n := uniform(g.r, x, y)
	g.buf = g.buf[:0]
	for range n {
		g.buf = append(g.buf, alnum[g.r.IntN(len(alnum))])
	}
	return string(g.buf)
}

// nstring is a random string of x to y digits.
func (g *gen) nstring(x, y int) string {
	n := uniform(g.r, x, y)
	g.buf = g.buf[:0]
	for range n {
		g.buf = append(g.buf, byte('0'+g.r.IntN(10)))
	}
	return string(g.buf)
}

// data is i_data or s_data: 26 to 50 characters, 10% of them with
// "ORIGINAL" at a random place (clause 4.3.3.1).
func (g *gen) data() string {
	s := g.astring(26, 50)
	if g.r.IntN(10) == 0 {
		at := g.r.IntN(len(s) - 8 + 1)
		s = s[:at] + "ORIGINAL" + s[at+8:]
	}
	return s
}

// zip is a zip code: four random digits and "11111".
func (g *gen) zip() string { return g.nstring(4, 4) + "11111" }

// state is two random letters.
func (g *gen) state() string {
	return string([]byte{byte('A' + g.r.IntN(26)), byte('A' + g.r.IntN(26))})
}

// address appends street 1, street 2, city, state and zip.
func (g *gen) address(row *target.CopyRow) {
	row.Text(g.astring(10, 20))
	row.Text(g.astring(10, 20))
	row.Text(g.astring(10, 20))
	row.Text(g.state())
	row.Text(g.zip())
}

// cents formats an amount in cents as a decimal.
func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	frac := strconv.FormatInt(c%100, 10)
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return sign + strconv.FormatInt(c/100, 10) + "." + frac
}

// rate formats a rate in ten-thousandths (a tax or a discount).
func rate(r int) string {
	s := strconv.Itoa(r)
	for len(s) < 4 {
		s = "0" + s
	}
	return "0." + s
}

// loader loads the tables through one session.
type loader struct {
	c      target.Copier
	seed   uint64
	sc     scale
	consts constants
	// loadTime is the entry, delivery and payment date of the loaded rows
	// as the dialect spells a timestamp.
	loadTime string
}

// copyRows loads n rows into table's columns; row appends row i (0-based)
// and is called in order.
func (l *loader) copyRows(ctx context.Context, table string, columns []string, n int, row func(i int, r *target.CopyRow)) error {
	i := 0
	_, err := l.c.CopyFrom(ctx, target.Copy{Table: table, Columns: columns, Rows: func(r *target.CopyRow) (bool, error) {
		if i == n {
			return false, nil
		}
		row(i, r)
		i++
		return true, nil
	}})
	if err != nil {
		return fmt.Errorf("loading %s: %w", table, err)
	}
	return nil
}

// items loads the item table.
func (l *loader) items(ctx context.Context) error {
	g := gen{r: stream(l.seed, "item", 0)}
	return l.copyRows(ctx, "item", []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}, l.sc.items, func(i int, r *target.CopyRow) {
		r.Int(int64(i + 1))
		r.Int(int64(uniform(g.r, 1, 10000)))
		r.Text(g.astring(14, 24))
		r.Text(cents(int64(uniform(g.r, 100, 10000))))
		r.Text(g.data())
	})
}

// warehouse loads warehouse w's rows of every table but item.
func (l *loader) warehouse(ctx context.Context, w int) error {
	for _, part := range []func(context.Context, int) error{l.warehouseRow, l.stock, l.district, l.customers, l.history, l.orders} {
		if err := part(ctx, w); err != nil {
			return fmt.Errorf("warehouse %d: %w", w, err)
		}
	}
	return nil
}

func (l *loader) warehouseRow(ctx context.Context, w int) error {
	g := gen{r: stream(l.seed, "warehouse", w)}
	ytd := int64(districts*l.sc.customers) * historyAmount
	return l.copyRows(ctx, "warehouse", []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}, 1, func(_ int, r *target.CopyRow) {
		r.Int(int64(w))
		r.Text(g.astring(6, 10))
		g.address(r)
		r.Text(rate(uniform(g.r, 0, 2000)))
		r.Text(cents(ytd))
	})
}

func (l *loader) stock(ctx context.Context, w int) error {
	g := gen{r: stream(l.seed, "stock", w)}
	cols := []string{"s_i_id", "s_w_id", "s_quantity"}
	for d := 1; d <= districts; d++ {
		cols = append(cols, fmt.Sprintf("s_dist_%02d", d))
	}
	cols = append(cols, "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data")
	return l.copyRows(ctx, "stock", cols, l.sc.items, func(i int, r *target.CopyRow) {
		r.Int(int64(i + 1))
		r.Int(int64(w))
		r.Int(int64(uniform(g.r, 10, 100)))
		for range districts {
			r.Text(g.astring(24, 24))
		}
		r.Int(0)
		r.Int(0)
		r.Int(0)
		r.Text(g.data())
	})
}

func (l *loader) district(ctx context.Context, w int) error {
	g := gen{r: stream(l.seed, "district", w)}
	ytd := int64(l.sc.customers) * historyAmount
	return l.copyRows(ctx, "district", []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"}, districts, func(i int, r *target.CopyRow) {
		r.Int(int64(i + 1))
		r.Int(int64(w))
		r.Text(g.astring(6, 10))
		g.address(r)
		r.Text(rate(uniform(g.r, 0, 2000)))
		r.Text(cents(ytd))
		r.Int(int64(l.sc.customers + 1))
	})
}

// historyAmount is each loaded customer's payment, in cents: its one
// history row, its c_ytd_payment and minus its c_balance.
const historyAmount = 1000

func (l *loader) customers(ctx context.Context, w int) error {
	g := gen{r: stream(l.seed, "customer", w)}
	n := l.sc.customers
	cols := []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip",
		"c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"}
	return l.copyRows(ctx, "customer", cols, districts*n, func(i int, r *target.CopyRow) {
		id := i%n + 1
		r.Int(int64(id))
		r.Int(int64(i/n + 1))
		r.Int(int64(w))
		r.Text(g.astring(8, 16))
		r.Text("OE")
		if id <= names {
			r.Text(lastName(id - 1))
		} else {
			r.Text(lastName(nurand(g.r, aLast, l.consts.last, 0, names-1)))
		}
		g.address(r)
		r.Text(g.nstring(16, 16))
		r.Text(l.loadTime)
		if g.r.IntN(10) == 0 {
			r.Text("BC")
		} else {
			r.Text("GC")
		}
		r.Text(cents(50_000_00))
		r.Text(rate(uniform(g.r, 0, 5000)))
		r.Text(cents(-historyAmount))
		r.Text(cents(historyAmount))
		r.Int(1)
		r.Int(0)
		r.Text(g.astring(300, 500))
	})
}

func (l *loader) history(ctx context.Context, w int) error {
	g := gen{r: stream(l.seed, "history", w)}
	n := l.sc.customers
	cols := []string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"}
	return l.copyRows(ctx, "history", cols, districts*n, func(i int, r *target.CopyRow) {
		d := int64(i/n + 1)
		r.Int(int64(i%n + 1))
		r.Int(d)
		r.Int(int64(w))
		r.Int(d)
		r.Int(int64(w))
		r.Text(l.loadTime)
		r.Text(cents(historyAmount))
		r.Text(g.astring(12, 24))
	})
}

// orders loads the orders, their order lines and the new orders of
// warehouse w. Each district's orders go to its customers in a random
// permutation (clause 4.3.3.1).
func (l *loader) orders(ctx context.Context, w int) error {
	g := gen{r: stream(l.seed, "orders", w)}
	n, done := l.sc.customers, l.sc.delivered()
	customer := make([]int, districts*n)
	lines := make([]int, districts*n)
	for d := range districts {
		perm := g.r.Perm(n)
		for o := range n {
			customer[d*n+o] = perm[o] + 1
			lines[d*n+o] = uniform(g.r, minOrderLines, maxOrderLines)
		}
	}
	cols := []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"}
	err := l.copyRows(ctx, "orders", cols, districts*n, func(i int, r *target.CopyRow) {
		o := i%n + 1
		r.Int(int64(o))
		r.Int(int64(i/n + 1))
		r.Int(int64(w))
		r.Int(int64(customer[i]))
		r.Text(l.loadTime)
		if o <= done {
			r.Int(int64(uniform(g.r, 1, 10)))
		} else {
			r.Null()
		}
		r.Int(int64(lines[i]))
		r.Int(1)
	})
	if err != nil {
		return err
	}
	// The order lines, one order after another.
	var total int
	for _, k := range lines {
		total += k
	}
	order, number := 0, 0
	cols = []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"}
	err = l.copyRows(ctx, "order_line", cols, total, func(_ int, r *target.CopyRow) {
		if number == lines[order] {
			order, number = order+1, 0
		}
		number++
		o := order%n + 1
		r.Int(int64(o))
		r.Int(int64(order/n + 1))
		r.Int(int64(w))
		r.Int(int64(number))
		r.Int(int64(uniform(g.r, 1, l.sc.items)))
		r.Int(int64(w))
		if o <= done {
			r.Text(l.loadTime)
		} else {
			r.Null()
		}
		r.Int(5)
		if o <= done {
			r.Text("0.00")
		} else {
			r.Text(cents(int64(uniform(g.r, 1, 999999))))
		}
		r.Text(g.astring(24, 24))
	})
	if err != nil {
		return err
	}
	pending := n - done
	return l.copyRows(ctx, "new_order", []string{"no_o_id", "no_d_id", "no_w_id"}, districts*pending, func(i int, r *target.CopyRow) {
		r.Int(int64(done + i%pending + 1))
		r.Int(int64(i/pending + 1))
		r.Int(int64(w))
	})
}
