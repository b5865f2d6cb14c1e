package result

import "fmt"

// Lost is how much a workload's ledger says the server acknowledged and
// no longer has: Count in Unit ("events", "cents of payments").
type Lost struct {
	Count int64  `json:"count"`
	Unit  string `json:"unit"`
}

func (l Lost) String() string { return fmt.Sprintf("%d acknowledged %s", l.Count, l.Unit) }

// FailedOver reports whether a failover or switchover was injected.
func (r *Result) FailedOver() bool {
	for _, f := range r.Faults {
		if f.Injected && (f.Kind == "failover" || f.Kind == "switchover") {
			return true
		}
	}
	return false
}

// LostAtFailover is what the run's ledger says a failover lost: the
// check's Lost once a failover or switchover was injected; nil without
// one, or for a workload whose check counts none.
func (r *Result) LostAtFailover() *Lost {
	if r.Invariants == nil || r.Invariants.Lost == nil || r.Invariants.NotChecked != "" || !r.FailedOver() {
		return nil
	}
	return r.Invariants.Lost
}
