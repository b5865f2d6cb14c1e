// Package tpcc is the TPC-C-like workload: the specification's nine tables
// (revision 5.11, clause 1.3) loaded as clause 4.3 says, its five
// transactions with clause 2's input generation, keying and think times
// (clause 5.2.5), and the consistency conditions of clause 3.3.2 as the
// invariant check. It is not an audited TPC-C result.
package tpcc

import "github.com/txnbench/txnbench/internal/workload"

func init() {
	workload.Register(workload.Def{
		Name:    "tpcc",
		Summary: "TPC-C-like: the specification's nine tables, five transactions and consistency conditions (not an audited result)",
		New:     func() workload.Workload { return &Workload{} },
	})
}
