package trainevents

// The names of the train-events books (workload.Ledger).
const (
	bookBaseline       = "baseline"
	bookCommitted      = "committed_events"
	bookUnknownEvents  = "unknown_events"
	bookUnknownCommits = "unknown_commits"
)

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
// counts, or with UseLedgers the sum of every shard's. The shards'
// baselines are the same (each counted the events before any shard ran);
// the smallest is taken, so a difference shows as a violation.
func (w *Workload) books() (baseline, committed, unknownEvents, unknownCommits int64) {
	if w.ledgers == nil {
		return w.baseline, w.committedEvents.Load(), w.unknownEvents.Load(), w.unknownCommits.Load()
	}
	for i, b := range w.ledgers {
		if i == 0 || b[bookBaseline] < baseline {
			baseline = b[bookBaseline]
		}
		committed += b[bookCommitted]
		unknownEvents += b[bookUnknownEvents]
		unknownCommits += b[bookUnknownCommits]
	}
	return baseline, committed, unknownEvents, unknownCommits
}
