package history

import (
	"math/rand/v2"
	"testing"
)

// simConfig shapes a simulated run: txns transactions of 1 to txnLen
// micro-ops over keys keys (a fresh set every rotate txns, as Elle
// retires keys, so lists stay short), concurrency of them open at once.
type simConfig struct {
	model       Model
	txns        int
	keys        int
	txnLen      int
	concurrency int
	rotate      int
	seed        uint64
}

// simulate runs random txns against a multi-version store under snapshot
// isolation: each reads the versions committed before it began (and its
// own writes), and commits unless a key it wrote was committed by another
// since it began (first committer wins). With concurrency 1 that is a
// serial execution. Some txns abort by choice (Fail), and some outcomes
// are lost (Info, whether committed or not), as a broken connection would.
func simulate(c simConfig) *History {
	rng := rand.New(rand.NewPCG(c.seed, 42))
	type version struct {
		ts  int64
		val int64
	}
	store := map[int64][]version{} // per key: committed appends or writes, in ts order
	next := map[int64]int64{}      // per key: the next value to write
	type open struct {
		log    *Log
		begin  int64
		ops    []mop
		at     int
		writes map[int64][]int64
		abort  bool
	}
	logs := make([]*Log, c.concurrency)
	for i := range logs {
		logs[i] = NewLog(i, c.txns/c.concurrency+1, c.txnLen, 8)
	}
	var clock int64
	started := 0
	active := make([]*open, c.concurrency)
	var buf []int64
	for done := 0; done < c.txns; {
		slot := rng.IntN(c.concurrency)
		o := active[slot]
		clock++
		if o == nil {
			if started == c.txns {
				continue
			}
			base := int64(started/c.rotate) * int64(c.keys)
			n := 1 + rng.IntN(c.txnLen)
			ops := make([]mop, n)
			for i := range ops {
				k := base + int64(rng.IntN(c.keys))
				if rng.IntN(2) == 0 {
					ops[i] = mop{read: true, k: k}
				} else {
					ops[i] = mop{k: k, vals: []int64{next[k]}}
					next[k]++
				}
			}
			o = &open{log: logs[slot], begin: clock, ops: ops, writes: map[int64][]int64{}, abort: rng.IntN(20) == 0}
			active[slot] = o
			started++
			o.log.Begin(clock)
			continue
		}
		if o.at < len(o.ops) {
			m := o.ops[o.at]
			o.at++
			if !m.read {
				o.log.Write(m.k, m.vals[0])
				o.writes[m.k] = append(o.writes[m.k], m.vals[0])
				continue
			}
			buf = buf[:0]
			for _, v := range store[m.k] {
				if v.ts < o.begin {
					buf = append(buf, v.val)
				}
			}
			buf = append(buf, o.writes[m.k]...)
			if c.model == ListAppend {
				o.log.ReadList(m.k, buf)
			} else if len(buf) == 0 {
				o.log.ReadValue(m.k, 0, false)
			} else {
				o.log.ReadValue(m.k, buf[len(buf)-1], true)
			}
			continue
		}
		// Commit, or not.
		outcome := OK
		if o.abort {
			outcome = Fail
		}
		for k := range o.writes {
			if vs := store[k]; len(vs) > 0 && vs[len(vs)-1].ts > o.begin {
				outcome = Fail
			}
		}
		if outcome == OK {
			for k, vals := range o.writes {
				for _, v := range vals {
					store[k] = append(store[k], version{clock, v})
				}
			}
		}
		if rng.IntN(30) == 0 {
			outcome = Info
		}
		o.log.End(clock, outcome)
		active[slot] = nil
		done++
	}
	return Merge(c.model, logs...)
}

// TestSerialHistoriesHaveNoAnomaly: a serial execution is serializable,
// strictly and in each process's order, so the checker must find nothing
// in any of them, whatever their txns.
func TestSerialHistoriesHaveNoAnomaly(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		for _, model := range []Model{ListAppend, Register} {
			h := simulate(simConfig{model: model, txns: 60, keys: 1 + int(seed%5), txnLen: 4, concurrency: 1, rotate: 30, seed: seed})
			res := Check(h, Options{Process: true, Realtime: true})
			if len(res.Anomalies) > 0 {
				t.Fatalf("%s seed %d: %s: %+v", model, seed, res.Summary(), res.Anomalies[0])
			}
		}
	}
}

// TestSnapshotHistoriesOnlyWriteSkew: histories of a snapshot-isolation
// store hold only what SI allows (G2-item), and do hold it (the store is
// weak enough for the check to mean something).
func TestSnapshotHistoriesOnlyWriteSkew(t *testing.T) {
	seen := map[Class]int{}
	for seed := uint64(0); seed < 200; seed++ {
		for _, model := range []Model{ListAppend, Register} {
			h := simulate(simConfig{model: model, txns: 80, keys: 1 + int(seed%4), txnLen: 4, concurrency: 5, rotate: 40, seed: seed})
			res := Check(h, Options{})
			_, violations := res.Split(SnapshotIsolation)
			if len(violations) > 0 {
				t.Fatalf("%s seed %d: %s: %+v", model, seed, res.Summary(), violations[0])
			}
			for _, a := range res.Anomalies {
				seen[a.Class]++
			}
		}
	}
	if seen[G2Item] == 0 || len(seen) != 1 {
		t.Errorf("classes found over all seeds: %v, want G2-item only", seen)
	}
}

// TestDroppedWriteIsAViolation: a serializable history in which the
// database lost one committed append from a read (the read skips it,
// later reads show it) must be a violation of serializability.
func TestDroppedWriteIsAViolation(t *testing.T) {
	h := simulate(simConfig{model: ListAppend, txns: 200, keys: 2, txnLen: 4, concurrency: 1, rotate: 200, seed: 7})
	if res := Check(h, Options{}); len(res.Anomalies) > 0 {
		t.Fatalf("the serial history before the drop: %s", res.Summary())
	}
	var op *Op
	for i := 0; op == nil; i++ {
		for j, o := range h.TxnOps(i) {
			if h.Txns[i].Outcome == OK && o.Kind == Read && o.Len >= 3 {
				op = &h.Ops[int(h.Txns[i].Off)+j]
				break
			}
		}
	}
	l := h.List(op)
	copy(l[1:], l[2:]) // the second value dropped
	op.Len--
	res := Check(h, Options{})
	if _, violations := res.Split(Serializable); len(violations) == 0 {
		t.Fatalf("a dropped write went unseen: %s", res.Summary())
	}
}
