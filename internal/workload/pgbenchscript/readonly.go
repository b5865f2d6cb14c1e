package pgbenchscript

import (
	"strconv"
	"sync"
	"sync/atomic"

	pgscript "github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/workload"
)

var (
	_ workload.ReadOnlyOps  = (*Workload)(nil)
	_ workload.StaleCounter = (*Workload)(nil)
)

// ReadOnlyOps are the scripts that are read-only builtins (select-only,
// ycsb-c, ycsb-read, oltp-read-only, oltp-point-select): --read-from
// may run them on a standby. A script file is never declared read-only.
func (w *Workload) ReadOnlyOps() []string {
	var ro []string
	names := w.OpNames()
	for i, s := range w.scripts {
		if i < len(w.Sources) && w.Sources[i].Builtin && pgscript.ReadOnly(s.Name) {
			ro = append(ro, names[i])
		}
	}
	return ro
}

// StaleReads are ycsb-read's reads of the record its client last wrote
// with ycsb-update that did not see that write, while no other client's
// write of the record had been acknowledged since; own counts those reads
// of the client's own last write, reads every ycsb-read; not ok without
// ycsb-read.
func (w *Workload) StaleReads() (stale, own, reads int64, ok bool) {
	if w.fresh == nil {
		return 0, 0, 0, false
	}
	return w.fresh.stale.Load(), w.fresh.own.Load(), w.fresh.reads.Load(), true
}

// freshness tracks the writes of ycsb-update and the reads of ycsb-read.
type freshness struct {
	mu    sync.Mutex
	last  map[string]write // by key: the last acknowledged write
	stale atomic.Int64
	own   atomic.Int64
	reads atomic.Int64
}

// write is a client's acknowledged write of a record's field0.
type write struct {
	client int
	value  string
}

// ycsbRole is what the stale-read count sees of script s.
func ycsbRole(s *pgscript.Script, builtin bool) string {
	if builtin && (s.Name == "ycsb-read" || s.Name == "ycsb-update") {
		return s.Name
	}
	return ""
}

// observe counts what the client's op of role just committed.
func (f *freshness) observe(cl *client, role string) {
	key, _ := cl.ic.Variable("key")
	switch role {
	case "ycsb-update":
		off, _ := cl.ic.Variable("off")
		n, _ := strconv.Atoi(off)
		wr := write{client: cl.id, value: pgscript.YCSBValue(n)}
		cl.lastKey, cl.lastValue = key, wr.value
		f.mu.Lock()
		f.last[key] = wr
		f.mu.Unlock()
	case "ycsb-read":
		f.reads.Add(1)
		if key != cl.lastKey {
			return
		}
		f.mu.Lock()
		mine := f.last[key] == write{client: cl.id, value: cl.lastValue}
		f.mu.Unlock()
		if !mine {
			return // another client wrote it since: its value may be newer
		}
		f.own.Add(1)
		if got, _ := cl.ic.Variable("read_field0"); got != cl.lastValue {
			f.stale.Add(1)
		}
	}
}
