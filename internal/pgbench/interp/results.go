package interp

import "github.com/txnbench/txnbench/internal/pgbench/script"

// resultSink reads a statement's results for \gset and \aset (and counts
// the results of a \; compound, to name the failing one as pgbench does).
//
// \aset stores the last row of every result that has rows, as each ends;
// \gset stores the last result, which must have exactly one row.
type resultSink struct {
	c    *Client
	gset *script.Gset
	n    int // results ended

	cols  []string
	vals  [][]byte // the current result's last row, copied
	bufs  []byte
	count int
}

func (r *resultSink) reset(g *script.Gset) {
	r.gset, r.n, r.count = g, 0, 0
	r.cols, r.vals = r.cols[:0], r.vals[:0]
}

func (r *resultSink) Row(n int, cols []string, vals [][]byte) error {
	if r.gset == nil {
		return nil
	}
	r.cols = append(r.cols[:0], cols...)
	r.bufs = r.bufs[:0]
	for _, v := range vals {
		r.bufs = append(r.bufs, v...)
	}
	r.vals = r.vals[:0]
	off := 0
	for _, v := range vals {
		r.vals = append(r.vals, r.bufs[off:off+len(v):off+len(v)])
		off += len(v)
	}
	return nil
}

func (r *resultSink) EndResult(n, rows int) error {
	r.n, r.count = n+1, rows
	if r.gset != nil && r.gset.All && rows > 0 {
		return r.store(n)
	}
	if rows == 0 {
		r.cols, r.vals = r.cols[:0], r.vals[:0]
	}
	return nil
}

// storeLast finishes \gset once the statement has returned.
func (r *resultSink) storeLast() error {
	c := r.c
	if r.n == 0 {
		return c.abortf(nil, "client %d command %d: no results", c.id, c.cmd)
	}
	if r.count != 1 {
		return c.abortf(nil, "client %d script %d command %d query %d: expected one row, got %d", c.id, c.script, c.cmd, r.n-1, r.count)
	}
	return r.store(r.n - 1)
}

// store puts the kept row into prefix+column variables as strings (a NULL
// is stored as the empty string, as PQgetvalue gives it).
func (r *resultSink) store(query int) error {
	c := r.c
	context := "gset"
	if r.gset.All {
		context = "aset"
	}
	for i, col := range r.cols {
		name := r.gset.Prefix + col
		s, err := c.create(context, name)
		if err != nil {
			return c.abortf(err, "client %d script %d command %d query %d: error storing into variable %s", c.id, c.script, c.cmd, query, name)
		}
		var val []byte
		if i < len(r.vals) {
			val = r.vals[i]
		}
		if v := &c.vars[s]; v.defined && v.isStr && v.str == string(val) {
			continue // unchanged: keep the parsed value
		}
		c.putString(s, string(val))
	}
	return nil
}
