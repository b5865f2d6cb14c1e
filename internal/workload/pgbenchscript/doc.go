// Package pgbenchscript is the workload that runs pgbench scripts: files and the
// builtins, weighted, with pgbench's language and random streams (through
// internal/pgbench), on any target and connector. `txnbench run script`
// and `txnbench pgbench` both run it. Its check compares the builtins'
// balances and rows before and after the run, and runs the user's --check
// queries.
package pgbenchscript

import "github.com/txnbench/txnbench/internal/workload"

func init() {
	workload.Register(workload.Def{
		Name:    "script",
		Summary: "pgbench scripts (-f FILE@W, -b tpcb-like|simple-update|select-only|ycsb-a..f|oltp-*@W) with pgbench's language and random streams",
		New:     func() workload.Workload { return New() },
	})
}
