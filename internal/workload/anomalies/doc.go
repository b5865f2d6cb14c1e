// Package anomalies is the history-checking workloads of issue 41,
// list-append and rw-register (the shapes Jepsen's Elle uses): each
// transaction is a few reads and writes of keys chosen among --keys, every
// attempt's inputs and results are recorded into an internal/history Log
// per client as the run goes, and after the run the checker builds the
// dependency graph of the whole history and reports the anomalies it
// finds, each as allowed by the isolation level the run asked for or as a
// violation of what the engine promises at it (a failed check: exit 3).
// docs/anomalies.md describes them.
package anomalies

import (
	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/workload"
)

func init() {
	workload.Register(workload.Def{
		Name:    "list-append",
		Summary: "transactions of appends to and reads of keyed lists, every one recorded and the history checked for isolation anomalies (Elle's list-append)",
		New:     func() workload.Workload { return &Workload{model: history.ListAppend} },
	})
	workload.Register(workload.Def{
		Name:    "rw-register",
		Summary: "transactions of reads and read-then-writes of keyed registers, every one recorded and the history checked for isolation anomalies (lost updates show)",
		New:     func() workload.Workload { return &Workload{model: history.Register} },
	})
}
