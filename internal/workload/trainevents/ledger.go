package trainevents

import "github.com/txnbench/txnbench/internal/workload"

// The names of the train-events books (workload.Ledger).
const (
	bookBaseline       = "baseline"
	bookCommitted      = "committed_events"
	bookUnknownEvents  = "unknown_events"
	bookUnknownCommits = "unknown_commits"
)

var _ workload.Ledger = (*Workload)(nil)

// Ledger is what this process's clients committed since Start, and the
// events there were when it started.
func (w *Workload) Ledger() map[string]int64 {
	return map[string]int64{
		bookBaseline:       w.baseline,
		bookCommitted:      w.committedEvents.Load(),
		bookUnknownEvents:  w.unknownEvents.Load(),
		bookUnknownCommits: w.unknownCommits.Load(),
	}
}

// UseLedgers makes Check count every shard's books.
func (w *Workload) UseLedgers(books []map[string]int64) { w.ledgers = books }

// books is what Check compares the database with: this process's own
// counts, or with UseLedgers the sum of every run's (the shards of a
// split run, and the runs that wrote these tables at the same time). The
// smallest baseline is taken: the first run counted it before any of them
// wrote, so a difference shows as a violation; books without a baseline
// (a shard killed before its first heartbeat) are left out of it. open
// says some books stop short (workload.BookOpen): their runs' later
// events are unknown, so the total has a bottom and no top.
func (w *Workload) books() (baseline, committed, unknownEvents, unknownCommits int64, open bool) {
	if w.ledgers == nil {
		return w.baseline, w.committedEvents.Load(), w.unknownEvents.Load(), w.unknownCommits.Load(), false
	}
	based := false
	for _, b := range w.ledgers {
		if v, ok := b[bookBaseline]; ok && (!based || v < baseline) {
			baseline, based = v, true
		}
		committed += b[bookCommitted]
		unknownEvents += b[bookUnknownEvents]
		unknownCommits += b[bookUnknownCommits]
		open = open || b[workload.BookOpen] != 0
	}
	return baseline, committed, unknownEvents, unknownCommits, open
}

var _ workload.Tables = (*Workload)(nil)

// Tables is the variant's: runs of other variants write other tables.
func (w *Workload) Tables() string { return "events_" + w.v.name() }
