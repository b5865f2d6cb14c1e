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
// completion (:ok, :fail or :info) at its end, in time order, :index
// counting from 0, :time in nanoseconds from the first start. Elle reads
// it: elle.list-append/check (or elle.rw-register/check) on the parsed
// history.
func WriteEDN(w io.Writer, h *History) error {
	type ev struct {
		at  int64
		end bool
		txn int
	}
	evs := make([]ev, 0, 2*len(h.Txns))
	var origin int64
	for i, t := range h.Txns {
		if i == 0 || t.Start < origin {
			origin = t.Start
		}
		evs = append(evs, ev{t.Start, false, i})
		if t.Outcome != Info { // an unknown outcome completes as :info at the end
			evs = append(evs, ev{t.End, true, i})
		}
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	var last int64
	for _, e := range evs {
		last = max(last, e.at)
	}
	for i, t := range h.Txns {
		if t.Outcome == Info {
			evs = append(evs, ev{max(t.End, last), true, i})
		}
	}
	bw := bufio.NewWriter(w)
	var b strings.Builder
	for idx, e := range evs {
		t := &h.Txns[e.txn]
		b.Reset()
		typ := ":invoke"
		if e.end {
			typ = ":" + t.Outcome.String()
		}
		b.WriteString("{:type ")
		b.WriteString(typ)
		b.WriteString(", :f :txn, :value ")
		writeEDNOps(&b, h, e.txn, e.end && t.Outcome == OK)
		b.WriteString(", :process ")
		b.WriteString(strconv.Itoa(int(t.Process)))
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
