// Package connectoverhead is the connect-overhead workload of seed 001: one
// read-only transaction per cycle running a SELECT 1, an indexed point
// lookup of a user, or a join and aggregation over users, orders and order
// items. Run with the runner's --conn strategies (session, per-txn, pool) it
// shows what connecting costs next to queries of three sizes. After a run
// it checks that the dataset it reads is intact.
package connectoverhead

import "github.com/txnbench/txnbench/internal/workload"

func init() {
	workload.Register(workload.Def{
		Name:    "connect-overhead",
		Summary: "one read per transaction (SELECT 1, point lookup or join+aggregate) to compare connection strategies",
		New:     func() workload.Workload { return &Workload{} },
	})
}
