package result

import (
	"fmt"
	"strings"
)

// ReadRouting is what --read-from replicas or any did: the workload's
// read-only ops ran on the standbys (or every member), each of which
// says by its own counters how many transactions it served.
type ReadRouting struct {
	From string `json:"from"` // "replicas" or "any"
	// Stale counts the reads that missed the client's own acknowledged
	// write, among Own reads of a record the client had last written and
	// Reads in all; nil when the workload cannot tell (it keeps no
	// workload.StaleCounter).
	Stale *int64 `json:"stale_reads,omitempty"`
	Own   int64  `json:"own_write_reads,omitempty"`
	Reads int64  `json:"reads,omitempty"`
	// Standbys are the transactions each standby committed in the run
	// database over the run (pg_stat_database.xact_commit).
	Standbys []StandbyReads `json:"standbys,omitempty"`
}

// StandbyReads is what one standby served.
type StandbyReads struct {
	Name    string `json:"name"`
	Commits int64  `json:"xact_commit"`
	// Promoted is a standby a failover made the primary: its count
	// holds the writes it took since.
	Promoted bool `json:"promoted,omitempty"`
}

// Commits are the transactions the standbys committed over the run, 0
// without read routing.
func (rr *ReadRouting) Commits() int64 {
	var n int64
	if rr != nil {
		for _, s := range rr.Standbys {
			n += s.Commits
		}
	}
	return n
}

// StaleLine is the footer's figure: "stale reads: 3 of 1200 reads from
// standbys (40 of the client's own last write)", "" when not counted.
func (rr *ReadRouting) StaleLine() string {
	if rr == nil || rr.Stale == nil {
		return ""
	}
	from := "standbys"
	if rr.From == "any" {
		from = "any member"
	}
	return fmt.Sprintf("stale reads: %d of %d reads from %s (%d of the client's own last write)", *rr.Stale, rr.Reads, from, rr.Own)
}

// ServedLine says what each standby served: "standby1 committed 1190
// transactions, standby2 1203 (their pg_stat_database.xact_commit)".
func (rr *ReadRouting) ServedLine() string {
	if rr == nil || len(rr.Standbys) == 0 {
		return ""
	}
	var parts []string
	for _, s := range rr.Standbys {
		p := fmt.Sprintf("%s %d", s.Name, s.Commits)
		if s.Promoted {
			p += " (promoted: its writes too)"
		}
		parts = append(parts, p)
	}
	return "reads from " + rr.From + ": transactions committed on " + strings.Join(parts, ", ") + " (pg_stat_database.xact_commit)"
}
