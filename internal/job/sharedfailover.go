package job

import (
	"fmt"

	"github.com/txnbench/txnbench/internal/fault"
)

// CheckSharedFailover refuses a study (specs, its cells by label, each
// run repeat times) in which a failover or a switchover would leave
// another run on the servers it changed: Shared hands the cells on one
// throwaway cluster the same primary and standbys, and after a failover
// they are another primary with a standby fewer, the old one fenced (a
// trial of --vary poolers=1,2 with a failover could not reach its second
// cell's pooler). Cells that differ in --replicas or --replication have
// servers of their own (serverKey).
func CheckSharedFailover(specs []Spec, labels []string, repeat int) error {
	for i, s := range specs {
		if !promotes(s) {
			continue
		}
		if repeat > 1 {
			return fmt.Errorf("cell %s: --fault failover or switchover with --repeat %d: each repetition would start on the servers the one before failed over (another primary, a standby fewer); give --repeat 1, or run the repetitions as scenarios of a suite, each on servers of its own (docs/replication.md)", labels[i], repeat)
		}
		sk, ok := serverKey(s)
		if !ok {
			continue
		}
		for j, o := range specs {
			if k, ok := serverKey(o); j != i && ok && k == sk {
				return fmt.Errorf("cells %s and %s share one primary and its standbys, and %s fails it over: the other would run on what the failover left; vary --replicas or --replication between them, or run them as scenarios of a suite, each on servers of its own (docs/replication.md)", labels[min(i, j)], labels[max(i, j)], labels[i])
			}
		}
	}
	return nil
}

// CheckLadderFailover refuses a capacity search whose steps (s, the
// first one's specification) fail over: every step and repetition of the
// ladder runs on the one throwaway primary and its standbys, so each step
// after the first would start on what the failover left, and the ladder
// would compare the servers, not the load.
func CheckLadderFailover(s Spec) error {
	if promotes(s) {
		return fmt.Errorf("--fault failover or switchover in a capacity search: its steps run one after another on one primary and its standbys, so every step after the first would start on what the failover left (another primary, a standby fewer); search without the fault, then run the failover at the load found (docs/replication.md)")
	}
	return nil
}

// promotes reports whether s has a failover or a switchover.
func promotes(s Spec) bool {
	for _, f := range s.Faults {
		if f.Kind.Needs() == fault.NeedsReplicas {
			return true
		}
	}
	return false
}
