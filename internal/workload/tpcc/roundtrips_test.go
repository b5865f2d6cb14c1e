package tpcc

import (
	"context"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// countingConn is a real session that counts the statements sent on it.
type countingConn struct {
	target.Conn
	statements int
}

func (c *countingConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c.statements++
	return c.Conn.Exec(ctx, sql, args...)
}

func (c *countingConn) Query(ctx context.Context, sql string, args ...any) (target.Rows, error) {
	c.statements++
	return c.Conn.Query(ctx, sql, args...)
}

func (c *countingConn) ExecCommit(ctx context.Context, sql string, args ...any) (int64, error) {
	c.statements++
	return c.Conn.ExecCommit(ctx, sql, args...)
}

// TestStatementsPerNewOrder counts the statements of 200 New-Orders (5 to
// 15 lines, 10 on average) on SQLite and PostgreSQL: batched sends seven
// whatever the lines on SQLite (warehouse and customer, district, order,
// new-order row, items, stock rows, order lines) and one on PostgreSQL
// with its BEGIN and COMMIT, one round trip (a rolled-back one too, and
// the driver's ROLLBACK after it), statements one per step and three per
// line (over 30 on average). The per-line form fails the first. Some of
// the 200 have the unused item and are counted as rolled back. Then
// Deliveries, each of all ten districts (every district has new orders
// left): one statement with its commit on PostgreSQL.
func TestStatementsPerNewOrder(t *testing.T) {
	for _, db := range []struct {
		name     string
		tg       func(t *testing.T) target.Target
		batched  float64 // statements per batched New-Order
		short    int     // statements a rolled-back batched New-Order does not send
		payment  int     // statements per batched Payment (0: not counted)
		delivery int     // statements per batched Delivery
	}{
		{"sqlite", func(t *testing.T) target.Target { return testutil.SQLite(t) }, 7, 2, 0, 5},
		{"postgres", func(t *testing.T) target.Target { return testutil.Open(t, testutil.SharedPostgres(t)) }, 1, 0, 1, 1},
	} {
		t.Run(db.name, func(t *testing.T) {
			tg := db.tg(t)
			conn := testutil.Session(t, tg)
			fresh := true
			if db.payment != 0 {
				// A batched Payment on PostgreSQL is one statement with its
				// commit, the customer chosen by name (60%) in it too.
				w := initWorkload(t, tg, conn, true, append(small, "--mix", "0,1,0,0,0")...)
				cc := &countingConn{Conn: conn}
				const n = 200
				runCycles(t, w, cc, 5, n)
				if cc.statements != db.payment*n || w.paidCents.Load() == 0 {
					t.Errorf("%d statements for %d batched Payments, want %d each (%d cents paid)", cc.statements, n, db.payment, w.paidCents.Load())
				}
				checkOK(t, w, conn)
				fresh = false
			}
			for i, tt := range []struct {
				impl     string
				min, max float64
			}{{implBatched, db.batched, db.batched}, {implStatements, 30, 40}} {
				w := initWorkload(t, tg, conn, fresh && i == 0, append(small, "--mix", "1,0,0,0,0", "--implementation", tt.impl)...)
				cc := &countingConn{Conn: conn}
				const n = 200
				runCycles(t, w, cc, 3, n)
				rolledBack := w.rollbacks.Load()
				// A rolled-back New-Order stops at its items (joined to
				// the stock rows on PostgreSQL).
				per := float64(cc.statements) / float64(n)
				if tt.impl == implBatched {
					per = float64(cc.statements+db.short*int(rolledBack)) / float64(n)
				}
				if per < tt.min || per > tt.max || w.newOrders.Load()+rolledBack != n || rolledBack == 0 {
					t.Errorf("%s: %.2f statements per New-Order, want %.0f to %.0f (%d committed, %d rolled back)",
						tt.impl, per, tt.min, tt.max, w.newOrders.Load(), rolledBack)
				}
				checkOK(t, w, conn)
			}
			// A Delivery of all ten districts: batched five statements
			// where it is not one (their oldest new orders, the claim,
			// the orders, the lines, the customers), five per district
			// one per step. Each delivers one new order of each of the
			// ten districts of warehouse 1 (terminal 4's).
			newOrders := func() (n int64) {
				if err := target.QueryRow(context.Background(), conn, "SELECT count(*) FROM new_order WHERE no_w_id = 1", nil, &n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			for _, tt := range []struct {
				impl string
				want int
			}{{implBatched, db.delivery}, {implStatements, 50}} {
				w := initWorkload(t, tg, conn, false, append(small, "--mix", "0,0,0,1,0", "--implementation", tt.impl)...)
				cc := &countingConn{Conn: conn}
				before := newOrders()
				runCycles(t, w, cc, 4, 2)
				if cc.statements != 2*tt.want || w.deliveries.Load() != 2 {
					t.Errorf("%s: %d statements for %d Deliveries, want %d each", tt.impl, cc.statements, w.deliveries.Load(), tt.want)
				}
				if delivered := before - newOrders(); delivered != 2*districts {
					t.Errorf("%s: 2 Deliveries delivered %d new orders, want %d", tt.impl, delivered, 2*districts)
				}
				checkOK(t, w, conn)
			}
		})
	}
}
