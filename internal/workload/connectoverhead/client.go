package connectoverhead

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// client runs one query per cycle. Its scan targets and arguments are
// made once, so a cycle allocates only what the driver does (and the
// strings a row is scanned into: reading the rows is the client's work).
type client struct {
	w    *Workload
	rng  *rand.Rand
	ops  []workload.Op
	sql  string
	args []any
	dest []any

	id     int64 // point: the user of this cycle
	region int   // complex: the region of this cycle (0-based)

	// The last result, also read by the tests.
	n    int      // rows read
	one  int64    // select1
	user userRow  // point
	row  topRow   // complex: the row being scanned
	top  []topRow // complex: the rows read
}

// userRow is a row of the point query.
type userRow struct {
	id                          int64
	email, name, region, status string
	createdAt                   timestamp
}

// topRow is a row of the complex query.
type topRow struct {
	userID               int64
	name                 string
	orders, items, cents int64
}

func newClient(w *Workload, rng *rand.Rand) *client {
	c := &client{w: w, rng: rng, sql: w.sql.query(w.kind), top: make([]topRow, 0, complexLimit)}
	switch w.kind {
	case kindSelect1:
		c.dest = []any{&c.one}
	case kindPoint:
		u := &c.user
		c.dest = []any{&u.id, &u.email, &u.name, &u.region, &u.status, &u.createdAt}
		c.args = make([]any, 1)
	case kindComplex:
		r := &c.row
		c.dest = []any{&r.userID, &r.name, &r.orders, &r.items, &r.cents}
	}
	c.ops = []workload.Op{{Name: opQuery, Run: c.query}}
	return c
}

func (c *client) Ops() []workload.Op { return c.ops }

// NextCycle draws the user or region the cycle's query reads and returns
// the pause that starts the cycle.
func (c *client) NextCycle() time.Duration {
	w := c.w
	switch w.kind {
	case kindPoint:
		c.id = w.minID + c.rng.Int64N(w.maxID-w.minID+1)
		c.args[0] = c.id
	case kindComplex:
		c.region = c.rng.IntN(len(w.regionArgs))
		c.args = w.regionArgs[c.region : c.region+1]
	}
	return w.delay
}

// query runs the cycle's query as a single statement (its own transaction), reads every
// row and checks that the result has the expected shape.
func (c *client) query(ctx context.Context, conn target.Conn) error {
	// One statement is its own transaction, as in seed 001: an explicit
	// BEGIN/COMMIT would add a round trip and, on SQLite, take the write lock.
	rows, err := conn.Query(ctx, c.sql, c.args...)
	if err != nil {
		return err
	}
	if err := c.scan(rows); err != nil {
		return err
	}
	return c.verify()
}

// scan reads all rows into the client's last result and closes them.
func (c *client) scan(rows target.Rows) error {
	defer rows.Close()
	c.n = 0
	c.top = c.top[:0]
	for rows.Next() {
		if err := rows.Scan(c.dest...); err != nil {
			return err
		}
		c.n++
		if c.w.kind == kindComplex && len(c.top) < cap(c.top) {
			c.top = append(c.top, c.row)
		}
	}
	return rows.Err()
}

// verify checks the last result's shape: a wrong answer is an error.
func (c *client) verify() error {
	switch c.w.kind {
	case kindSelect1:
		if c.n != 1 || c.one != 1 {
			return fmt.Errorf("select1: %d rows, value %d: want one row with 1", c.n, c.one)
		}
	case kindPoint:
		if c.n != 1 || c.user.id != c.id {
			return fmt.Errorf("point: user %d not found (%d rows): the dataset in %s is incomplete", c.id, c.n, tableUsers)
		}
	case kindComplex:
		if c.n > complexLimit {
			return fmt.Errorf("complex: %d rows, more than the limit of %d", c.n, complexLimit)
		}
	}
	return nil
}

// timestamp scans a timestamp as the driver returns it: a time.Time from
// a timestamp column, or text (SQLite) in timestampLayout or RFC 3339.
type timestamp struct{ time.Time }

func (t *timestamp) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		t.Time = v
		return nil
	case string:
		return t.parse(v)
	case []byte:
		return t.parse(string(v))
	}
	return fmt.Errorf("cannot read %T as a timestamp", src)
}

func (t *timestamp) parse(s string) error {
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("reading a timestamp: %w", err)
	}
	t.Time = v
	return nil
}
