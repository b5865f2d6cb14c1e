package history

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteEDN writes h in Elle's history form, one map a line: each txn's
// invocation (:type :invoke, its reads unknown: nil) at its start and its
// completion (:ok, :fail or :info) at its end, in time order (at one
// instant a completion comes before an invocation), :index counting from
// 0, :time in nanoseconds from the first start. A txn never ended
// completes as :info after everything else. As in a Jepsen history, a
// process whose txn ended :info is not used again: its next txns carry a
// new :process (the client's number plus a multiple of the clients').
// Elle reads it: elle.list-append/check (or elle.rw-register/check) on
// the parsed history.
func WriteEDN(w io.Writer, h *History) error {
	type ev struct {
		at   int64
		rank int // at one instant: completions, invocations, completions of instant txns
		txn  int
	}
	evs := make([]ev, 0, 2*len(h.Txns))
	var origin, last int64
	var stride int64 = 1
	for i, t := range h.Txns {
		if i == 0 || t.Start < origin {
			origin = t.Start
		}
		last = max(last, t.Start, t.End)
		stride = max(stride, int64(t.Process)+1)
	}
	for i, t := range h.Txns {
		evs = append(evs, ev{t.Start, 1, i})
		switch {
		case t.End < t.Start: // never ended
			evs = append(evs, ev{last, 2, i})
		case t.End == t.Start:
			evs = append(evs, ev{t.End, 2, i})
		default:
			evs = append(evs, ev{t.End, 0, i})
		}
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.rank, b.rank)) })
	retired := map[int32]int64{} // per client: its processes ended :info
	process := make([]int64, len(h.Txns))
	bw := bufio.NewWriter(w)
	var b strings.Builder
	for idx, e := range evs {
		t := &h.Txns[e.txn]
		b.Reset()
		end := e.rank != 1
		typ := ":invoke"
		if end {
			typ = ":" + t.Outcome.String()
		} else {
			process[e.txn] = int64(t.Process) + retired[t.Process]*stride
		}
		if end && t.Outcome == Info {
			retired[t.Process]++
		}
		b.WriteString("{:type ")
		b.WriteString(typ)
		b.WriteString(", :f :txn, :value ")
		writeEDNOps(&b, h, e.txn, end && t.Outcome == OK)
		b.WriteString(", :process ")
		b.WriteString(strconv.FormatInt(process[e.txn], 10))
		b.WriteString(", :time ")
		b.WriteString(strconv.FormatInt(e.at-origin, 10))
		b.WriteString(", :index ")
		b.WriteString(strconv.Itoa(idx))
		b.WriteString("}\n")
		if _, err := bw.WriteString(b.String()); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeEDNOps writes txn i's micro-ops as Elle's :value, its reads' results
// when withReads (else nil, as an invocation's).
func writeEDNOps(b *strings.Builder, h *History, i int, withReads bool) {
	b.WriteByte('[')
	for j, op := range h.TxnOps(i) {
		if j > 0 {
			b.WriteByte(' ')
		}
		switch {
		case op.Kind == Write && h.Model == ListAppend:
			b.WriteString("[:append ")
		case op.Kind == Write:
			b.WriteString("[:w ")
		default:
			b.WriteString("[:r ")
		}
		b.WriteString(strconv.FormatInt(op.Key, 10))
		b.WriteByte(' ')
		switch {
		case op.Kind == Write:
			b.WriteString(strconv.FormatInt(op.Value, 10))
		case !withReads || h.Model == Register && op.Len == 0:
			b.WriteString("nil")
		case h.Model == Register:
			b.WriteString(strconv.FormatInt(op.Value, 10))
		default:
			b.WriteByte('[')
			for k, v := range h.List(&op) {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(strconv.FormatInt(v, 10))
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
}
