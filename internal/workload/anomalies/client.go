package anomalies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// mop is one planned micro-op: a read of key, or a write of value to it.
type mop struct {
	key, value int64
	write      bool
}

// client runs one transaction per cycle, planned in NextCycle (a retry
// runs the same plan again, as a new attempt of the history), and records
// every attempt into its Log.
type client struct {
	w      *Workload
	rng    *rand.Rand
	log    *history.Log
	ops    []workload.Op
	plan   []mop
	seq    int64 // values written so far by this client
	id     int64
	args   [2]any
	text   string  // a list read's text
	reg    int64   // a register read's value
	list   []int64 // a list read's values, reused
	append []byte  // an append's ",V", reused
}

func newClient(w *Workload, id int, rng *rand.Rand, log *history.Log) *client {
	c := &client{w: w, rng: rng, log: log, id: int64(id), plan: make([]mop, 0, 2*w.txnLen), list: make([]int64, 0, 2*writesPerKey)}
	c.ops = []workload.Op{{Name: opTxn, Run: c.txn}}
	return c
}

func (c *client) Ops() []workload.Op { return c.ops }

// NextCycle plans the transaction: --txn-len micro-ops on keys drawn from
// the --keys slots, each a read with the --reads share, else a write of a
// value no other write has (this client's count, its id in the low digits).
// A key slot's current key is its generation: it moves on to a fresh key
// after writesPerKey writes. rw-register reads a key before its first
// write of it, so each write is computed from what the transaction read.
func (c *client) NextCycle() time.Duration {
	w := c.w
	c.plan = c.plan[:0]
	for range w.txnLen {
		slot := c.rng.IntN(w.keys)
		if c.rng.Float64() < w.reads {
			gen := w.written[slot].Load() / writesPerKey
			c.plan = append(c.plan, mop{key: gen*int64(w.keys) + int64(slot)})
			continue
		}
		gen := (w.written[slot].Add(1) - 1) / writesPerKey
		key := gen*int64(w.keys) + int64(slot)
		c.seq++
		if w.model == history.Register && !c.touched(key) {
			c.plan = append(c.plan, mop{key: key})
		}
		c.plan = append(c.plan, mop{key: key, value: c.seq*int64(w.clients) + c.id + 1, write: true})
	}
	return 0
}

// touched says whether the plan so far reads or writes key.
func (c *client) touched(key int64) bool {
	for _, m := range c.plan {
		if m.key == key {
			return true
		}
	}
	return false
}

// txn makes one attempt at the planned transaction, recording it: its
// start and end, each micro-op with what its read returned, and its
// outcome (ok when it committed, info when the commit's outcome is
// unknown, fail otherwise).
func (c *client) txn(ctx context.Context, conn target.Conn) error {
	if !c.w.record {
		_, err := c.attempt(ctx, conn)
		return err
	}
	c.log.Begin(c.w.now())
	commit, err := c.attempt(ctx, conn)
	outcome := history.OK
	switch {
	case err == nil:
	case commit && target.CommitOutcomeUnknown(err):
		outcome = history.Info
		c.w.unknown.Add(1)
	default:
		outcome = history.Fail
	}
	c.log.End(c.w.now(), outcome)
	return err
}

// attempt runs the plan in a transaction; commit says the error came from
// the commit.
func (c *client) attempt(ctx context.Context, conn target.Conn) (commit bool, err error) {
	if err := conn.Begin(ctx); err != nil {
		return false, err
	}
	for _, m := range c.plan {
		if err = c.run(ctx, conn, m); err != nil {
			conn.Rollback(ctx)
			return false, err
		}
	}
	return true, conn.Commit(ctx)
}

// run runs one micro-op and records it.
func (c *client) run(ctx context.Context, conn target.Conn, m mop) error {
	sql := c.w.sql
	c.args[0] = c.w.base + m.key
	if m.write {
		if c.w.model == history.ListAppend {
			c.append = strconv.AppendInt(append(c.append[:0], ','), m.value, 10)
			c.args[1] = string(c.append)
		} else {
			c.args[1] = m.value
		}
		if _, err := conn.Exec(ctx, sql.write, c.args[:]...); err != nil {
			return err
		}
		if c.w.record {
			c.log.Write(m.key, m.value)
		}
		return nil
	}
	dest := any(&c.text)
	if c.w.model == history.Register {
		dest = &c.reg
	}
	found, err := readRow(ctx, conn, sql.read, c.args[:1], dest)
	if err != nil {
		return err
	}
	if !found {
		c.text = ""
	}
	switch {
	case !c.w.record:
		return nil
	case c.w.model == history.Register:
		c.log.ReadValue(m.key, c.reg, found)
		return nil
	}
	if c.list, err = parseList(c.list[:0], c.text); err != nil {
		return fmt.Errorf("%w: key %d holds %q: %v", workload.ErrAbortClient, m.key, c.text, err)
	}
	c.log.ReadList(m.key, c.list)
	return nil
}

// parseList appends the values of a list's text (",3,7,12") to vals.
func parseList(vals []int64, text string) ([]int64, error) {
	for i := 0; i < len(text); {
		if text[i] != ',' {
			return vals, errors.New("a value without its comma")
		}
		j := i + 1
		for j < len(text) && text[j] != ',' {
			j++
		}
		v, err := strconv.ParseInt(text[i+1:j], 10, 64)
		if err != nil {
			return vals, err
		}
		vals, i = append(vals, v), j
	}
	return vals, nil
}

// readRow runs a key's read and scans its row into dest: found is false
// when there is none (the key was never written).
func readRow(ctx context.Context, conn target.Conn, q string, args []any, dest any) (found bool, err error) {
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if found = rows.Next(); found {
		err = rows.Scan(dest)
	}
	rows.Close()
	return found, cmp.Or(err, rows.Err())
}
