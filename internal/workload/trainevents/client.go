package trainevents

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// client is one simulated application instance. Its buffers are reused
// from cycle to cycle so the hot path allocates little.
type client struct {
	w   *Workload
	rng *rand.Rand
	gen generator
	ops []workload.Op

	n   int // batch size of this cycle
	ids [][16]byte
	// process: the new status, state and fleeted flag per selected event,
	// and for TEXT payloads the documents read and rewritten.
	newStatus []string
	newState  []string
	fleeted   []bool
	payloads  [][]byte
	timer     workload.Timer // for the think times
	args      []any          // statement arguments
	enc       []byte         // JSON-encoded batch, where there are no array parameters

	rowID [16]byte // scan targets, pointed to by dest
	docs  docs
	dest  []any

	rewritten docs // the TEXT payloads as process rewrote them
}

func (c *client) Ops() []workload.Op { return c.ops }

// batch is one generated batch of events and its encodings. A client
// borrows one from the workload's batches only while it inserts the batch,
// so memory grows with the inserts in flight, not with the number of
// clients.
type batch struct {
	buf     []byte
	offsets [][4]int // payload and train id of each event in buf
	events  []event
	cols    struct { // events as column arrays
		ids      [][16]byte
		payloads [][]byte
		types    []string
		auths    [][16]byte
		trains   [][]byte
	}
	enc []byte // events as one JSON array, where there are no array parameters
}

// batches are the batches not being inserted. Unlike a sync.Pool, which
// each garbage collection empties, they keep their buffers from cycle to
// cycle: there are at most as many as inserts ever ran at once.
type batches struct {
	mu   sync.Mutex
	free []*batch
}

func (bs *batches) get() *batch {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	n := len(bs.free)
	if n == 0 {
		return new(batch)
	}
	b := bs.free[n-1]
	bs.free = bs.free[:n-1]
	return b
}

func (bs *batches) put(b *batch) {
	bs.mu.Lock()
	bs.free = append(bs.free, b)
	bs.mu.Unlock()
}

// NextCycle draws the batch size and returns the pause that starts the
// cycle.
func (c *client) NextCycle() time.Duration {
	w := c.w
	c.n = w.minBatch + c.rng.IntN(w.maxBatch-w.minBatch+1)
	return time.Duration(float64(w.delay) * (0.75 + 0.5*c.rng.Float64()))
}

// think waits the think time inside a transaction, locks held: part of
// what is measured, not pacing (which is the runner's).
func (c *client) think(ctx context.Context) error {
	c.timer.Sleep(ctx, workload.Uniform(c.rng, c.w.thinkMin, c.w.thinkMax))
	return ctx.Err()
}

// execEach runs a statement of the transaction that touches one row per
// event in c.ids; what names it in the error when the rows do not match.
func (c *client) execEach(ctx context.Context, conn target.Conn, what, sql string, args []any) error {
	n, err := conn.Exec(ctx, sql, args...)
	if err != nil {
		return err
	}
	if int(n) != len(c.ids) {
		return fmt.Errorf("%s: %d rows for %d events", what, n, len(c.ids))
	}
	return nil
}

// execCommit runs the transaction's last statement and commits, in one
// round trip, and checks that it touched one row per id in c.ids. It keeps
// the books of the invariant check: events is how many events the commit
// adds to the total, counted when it committed, or as unknown when its
// outcome is.
func (c *client) execCommit(ctx context.Context, conn target.Conn, events int, what, sql string, args []any) error {
	n, err := conn.ExecCommit(ctx, sql, args...)
	if err != nil {
		if target.CommitOutcomeUnknown(err) {
			c.w.unknownCommits.Add(1)
			c.w.unknownEvents.Add(int64(events))
		}
		return err
	}
	c.w.committedEvents.Add(int64(events))
	if int(n) != len(c.ids) {
		// Committed, but wrong: the invariant check will see any damage.
		return fmt.Errorf("%s: %d rows for %d events", what, n, len(c.ids))
	}
	return nil
}

// pick reads the ids of up to n events that query selects into c.ids,
// with their payloads into c.payloads when withPayload is set (scanIDs).
func (c *client) pick(ctx context.Context, conn target.Conn, query string, withPayload bool) error {
	rows, err := conn.Query(ctx, query, c.n)
	if err != nil {
		return err
	}
	return c.scanIDs(rows, withPayload)
}

// scanIDs reads a one-column result of event ids into c.ids, and when
// withPayload is set a second column of payloads into c.payloads.
func (c *client) scanIDs(rows target.Rows, withPayload bool) error {
	defer rows.Close()
	c.ids = c.ids[:0]
	c.payloads = c.payloads[:0]
	c.docs.reset()
	dest := c.dest[:1]
	if withPayload {
		dest = c.dest[:2]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		c.ids = append(c.ids, c.rowID)
	}
	if withPayload {
		c.payloads = c.docs.slices(c.payloads)
	}
	return rows.Err()
}

// docs is a scan target that copies each row's payload into one buffer a
// client reuses, rather than the driver allocating a copy per row.
type docs struct {
	buf  []byte
	ends []int
}

func (d *docs) reset() { d.buf, d.ends = d.buf[:0], d.ends[:0] }

// ScanBytes takes a PostgreSQL value (pgx's BytesScanner); b is valid only
// during the call.
func (d *docs) ScanBytes(b []byte) error {
	d.buf = append(d.buf, b...)
	d.ends = append(d.ends, len(d.buf))
	return nil
}

// Scan takes a database/sql value (SQLite), valid only during the call.
func (d *docs) Scan(src any) error {
	switch v := src.(type) {
	case string:
		d.buf = append(d.buf, v...)
	case []byte:
		d.buf = append(d.buf, v...)
	default:
		return fmt.Errorf("payload: cannot read %T as a document", src)
	}
	d.ends = append(d.ends, len(d.buf))
	return nil
}

// slices appends the documents read to dst, each capped at its end so
// that rewriting one in place cannot run into the next.
func (d *docs) slices(dst [][]byte) [][]byte {
	start := 0
	for _, end := range d.ends {
		dst = append(dst, d.buf[start:end:end])
		start = end
	}
	return dst
}

// textUUID scans a UUID stored as text (SQLite).
type textUUID [16]byte

func (u *textUUID) Scan(src any) error {
	var id [16]byte
	var ok bool
	switch v := src.(type) {
	case string:
		id, ok = parseUUID(v) // no copy to []byte: it would allocate
	case []byte:
		id, ok = parseUUID(v)
	default:
		return fmt.Errorf("event id: cannot read %T as a UUID", src)
	}
	if !ok {
		return fmt.Errorf("event id %q is not a UUID", src)
	}
	*u = id
	return nil
}
