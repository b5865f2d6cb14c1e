package history

import (
	"fmt"
	"slices"
)

// Log is one client's part of a history: append-only slices of fixed-size
// records and one arena of the values its list reads returned. A client
// owns its Log (no lock); recording allocates nothing once the slices
// have grown to the run's size (NewLog's hints preallocate them).
type Log struct {
	process int32
	open    bool
	txns    []Txn
	ops     []Op
	vals    []int64
}

// NewLog returns the Log of process (a client), its slices sized for txns
// transactions of opsPerTxn micro-ops and valsPerTxn list values each.
func NewLog(process, txns, opsPerTxn, valsPerTxn int) *Log {
	return &Log{
		process: int32(process),
		txns:    make([]Txn, 0, txns),
		ops:     make([]Op, 0, txns*opsPerTxn),
		vals:    make([]int64, 0, txns*valsPerTxn),
	}
}

// Begin starts a transaction at start (monotonic ns). A transaction still
// open is ended first as Info: its outcome was never learned.
func (l *Log) Begin(start int64) {
	if l.open {
		l.End(start, Info)
	}
	l.txns = append(l.txns, Txn{Start: start, Process: l.process, Off: uint32(len(l.ops)), Outcome: Info})
	l.open = true
}

// Write records an append (ListAppend) or a write (Register) of value to key.
func (l *Log) Write(key, value int64) {
	l.add(Op{Kind: Write, Key: key, Value: value})
}

// ReadList records a list read of key that returned vals (copied into
// the Log's arena: vals may be reused by the caller).
func (l *Log) ReadList(key int64, vals []int64) {
	off := len(l.vals)
	l.vals = append(l.vals, vals...)
	l.add(Op{Kind: Read, Key: key, Off: uint32(off), Len: uint32(len(vals))})
}

// ReadValue records a register read of key: value when found, else
// nothing (the register was never written).
func (l *Log) ReadValue(key, value int64, found bool) {
	op := Op{Kind: Read, Key: key}
	if found {
		op.Value, op.Len = value, 1
	}
	l.add(op)
}

func (l *Log) add(op Op) {
	if !l.open {
		panic("history: a micro-op recorded outside Begin and End")
	}
	l.ops = append(l.ops, op)
	l.txns[len(l.txns)-1].Len++
}

// End ends the open transaction at end with its outcome.
func (l *Log) End(end int64, o Outcome) {
	if !l.open {
		return
	}
	t := &l.txns[len(l.txns)-1]
	t.End, t.Outcome = end, o
	l.open = false
}

// Len is the number of transactions recorded.
func (l *Log) Len() int { return len(l.txns) }

// Merge joins the Logs of a run's clients into one History of model, its
// transactions in the order they started (a Log's still open transaction
// counts as Info).
func Merge(model Model, logs ...*Log) *History {
	h := &History{Model: model}
	var nt, no, nv int
	for _, l := range logs {
		nt, no, nv = nt+len(l.txns), no+len(l.ops), nv+len(l.vals)
	}
	h.Txns, h.Ops, h.Vals = make([]Txn, 0, nt), make([]Op, 0, no), make([]int64, 0, nv)
	for _, l := range logs {
		ob, vb := uint32(len(h.Ops)), uint32(len(h.Vals))
		for _, t := range l.txns {
			t.Off += ob
			h.Txns = append(h.Txns, t)
		}
		for _, op := range l.ops {
			if op.Kind == Read && model == ListAppend {
				op.Off += vb
			}
			h.Ops = append(h.Ops, op)
		}
		h.Vals = append(h.Vals, l.vals...)
	}
	slices.SortStableFunc(h.Txns, func(a, b Txn) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return h
}

// Validate says whether h is well formed: a known model and outcomes, and
// every offset inside its slices.
func (h *History) Validate() error {
	if h.Model != ListAppend && h.Model != Register {
		return fmt.Errorf("unknown model %d", h.Model)
	}
	for i, t := range h.Txns {
		if t.Outcome < OK || t.Outcome > Info {
			return fmt.Errorf("transaction %d: unknown outcome %d", i, t.Outcome)
		}
		if uint64(t.Off)+uint64(t.Len) > uint64(len(h.Ops)) {
			return fmt.Errorf("transaction %d: micro-ops beyond the history's %d", i, len(h.Ops))
		}
	}
	for i, op := range h.Ops {
		switch {
		case op.Kind != Write && op.Kind != Read:
			return fmt.Errorf("micro-op %d: unknown kind %d", i, op.Kind)
		case op.Kind == Read && h.Model == ListAppend && uint64(op.Off)+uint64(op.Len) > uint64(len(h.Vals)):
			return fmt.Errorf("micro-op %d: list beyond the history's %d values", i, len(h.Vals))
		case op.Kind == Read && h.Model == Register && op.Len > 1:
			return fmt.Errorf("micro-op %d: a register read of %d values", i, op.Len)
		}
	}
	return nil
}
