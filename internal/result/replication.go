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

// StandbyLag is what the primary said of one standby over the run
// (pg_stat_replication, sampled): its largest write, flush and replay
// lag and the most WAL it had not yet replayed.
type StandbyLag struct {
	Name           string  `json:"name"`  // its application_name, standbyN
	State          string  `json:"state"` // at the last sample: streaming, catchup, ...
	Samples        int     `json:"samples"`
	MaxWriteLagMS  float64 `json:"max_write_lag_ms"`
	MaxFlushLagMS  float64 `json:"max_flush_lag_ms"`
	MaxReplayLagMS float64 `json:"max_replay_lag_ms"`
	MaxBehindBytes int64   `json:"max_behind_bytes"`
}

func (l StandbyLag) String() string {
	return fmt.Sprintf("%s %s: lag at most write %.1f ms, flush %.1f ms, replay %.1f ms; %d bytes of WAL behind at most (%d samples)",
		l.Name, l.State, l.MaxWriteLagMS, l.MaxFlushLagMS, l.MaxReplayLagMS, l.MaxBehindBytes, l.Samples)
}
