// Package history records the transactions of a history-checking workload
// (list-append, rw-register: the shapes Jepsen's Elle uses) at benchmark
// speed, and checks the history for the anomalies of Adya's isolation
// levels: it infers each key's version order, builds the dependency graph
// (ww, wr, rw; process and real-time order when asked), finds its cycles
// and names each by its edges. It knows no database: a workload records
// into a Log per client, the run merges them into a History, and Check
// reads it. docs/anomalies.md describes the model.
package history

// Model is the kind of object a history's keys name.
type Model uint8

const (
	// ListAppend keys name lists: a write appends a value, a read returns
	// the whole list, so the longest read of a key gives its version order.
	ListAppend Model = 1
	// Register keys name registers: a write sets a value, a read returns
	// the one value (or nothing, before the first write).
	Register Model = 2
)

func (m Model) String() string {
	return nameOf(modelNames, m, "unknown model")
}

var modelNames = []string{ListAppend: "list-append", Register: "rw-register"}

// nameOf is names[v], or unknown for a value names does not name.
func nameOf[T ~uint8](names []string, v T, unknown string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return unknown
}

// Outcome is what the client learned of a transaction's commit.
type Outcome uint8

const (
	// OK: it committed.
	OK Outcome = 1
	// Fail: it did not (it aborted, or the database refused it): none of
	// its writes may be seen.
	Fail Outcome = 2
	// Info: unknown (the connection broke at commit): its writes may or may
	// not be seen; its reads are not trusted.
	Info Outcome = 3
)

func (o Outcome) String() string {
	return nameOf(outcomeNames, o, "unknown")
}

var outcomeNames = []string{OK: "ok", Fail: "fail", Info: "info"}

// Kind is a micro-op's kind.
type Kind uint8

const (
	// Write appends Value to the list (ListAppend) or sets the register.
	Write Kind = 1
	// Read reads the key: for ListAppend the list is Vals[Off:Off+Len] of
	// its History (or Log); for Register, Len is 0 when the register held
	// nothing and 1 when it held Value.
	Read Kind = 2
)

// Op is one micro-op of a transaction: a fixed-size record.
type Op struct {
	Key, Value int64
	Off, Len   uint32
	Kind       Kind
}

// Txn is one attempt of a transaction: a fixed-size record whose
// micro-ops are Ops[Off:Off+Len] of its History (or Log). Start and End
// are monotonic nanoseconds (any common origin).
type Txn struct {
	Start, End int64
	Process    int32
	Off, Len   uint32
	Outcome    Outcome
}

// History is the transactions of a run: every attempt, committed or not,
// with their micro-ops and the values their list reads returned.
type History struct {
	Model Model
	Txns  []Txn
	Ops   []Op
	Vals  []int64
}

// TxnOps returns the micro-ops of txn i.
func (h *History) TxnOps(i int) []Op {
	t := &h.Txns[i]
	return h.Ops[t.Off : t.Off+t.Len]
}

// List returns the values a list read returned.
func (h *History) List(op *Op) []int64 { return h.Vals[op.Off : op.Off+op.Len] }
