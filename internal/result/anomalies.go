package result

import (
	"fmt"

	"github.com/txnbench/txnbench/internal/history"
)

// Anomalies is what the isolation checker found in the history of a
// history-checking workload's run (list-append, rw-register): each class,
// and whether the level the run asked for promises to prevent it (a
// violation) or allows it. A violation also fails the run's check (a
// failed item: exit 3).
type Anomalies struct {
	Transactions int `json:"transactions"` // every attempt recorded
	// Level is the level the transactions ran at, Promise what the engine
	// documents it to prevent, as the checker's level (PostgreSQL's
	// repeatable-read is snapshot-isolation).
	Level   string    `json:"level"`
	Promise string    `json:"promise"`
	Found   []Anomaly `json:"found,omitempty"`
	// History is the file the history was saved to (--history), EDN the
	// file of its export for Elle (--history-edn).
	History string `json:"history,omitempty"`
	EDN     string `json:"edn,omitempty"`
}

// Anomaly is one class found: how often, whether the level rules it out,
// and one example (its transactions, keys, values and the edges of its
// cycle) in one line.
type Anomaly struct {
	Class     string `json:"class"`
	Count     int    `json:"count"`
	Violation bool   `json:"violation"`
	Example   string `json:"example"`
}

// Violations counts the classes found that the level rules out.
func (a *Anomalies) Violations() int {
	n := 0
	for _, f := range a.Found {
		if f.Violation {
			n++
		}
	}
	return n
}

// Summary is the verdict in a few words: "none in N transactions", or
// "G2-item 12, lost-update 3 in N transactions".
func (a *Anomalies) Summary() string {
	if a == nil {
		return "-"
	}
	h := history.Result{Txns: a.Transactions}
	for _, f := range a.Found {
		h.Anomalies = append(h.Anomalies, history.Anomaly{Class: history.Class(f.Class), Count: f.Count})
	}
	return h.Summary()
}

// Verdict is the anomalies line of a report, after "anomalies: ": the
// summary and what the level makes of it.
func (a *Anomalies) Verdict() string {
	s := a.Summary()
	switch v := a.Violations(); {
	case len(a.Found) == 0:
		return s + " (" + a.Promise + " checked)"
	case v > 0:
		return fmt.Sprintf("%s: %d of them VIOLATE %s", s, v, a.Promise)
	}
	return s + " (allowed by " + a.Promise + ")"
}

// Merge adds o's findings to a (repetitions of one cell): the counts
// summed by class, the first example kept.
func (a *Anomalies) Merge(o *Anomalies) {
	a.Transactions += o.Transactions
	for _, f := range o.Found {
		i := 0
		for i < len(a.Found) && a.Found[i].Class != f.Class {
			i++
		}
		if i == len(a.Found) {
			a.Found = append(a.Found, f)
			continue
		}
		a.Found[i].Count += f.Count
	}
}
