// Package interp runs parsed pgbench scripts for one client at a time, the
// way PostgreSQL 15's pgbench runs them: variables (-D strings, the
// automatic client_id, scale, random_seed and default_seed, \set values,
// \gset and \aset results), :variable substitution into SQL (text in simple
// mode, parameters in extended and prepared mode), \sleep, \shell and
// \setshell through /bin/sh, \if/\elif/\else/\endif, pipelines, debug()
// output, per-command timings for -r, the random state replayed when a
// failed transaction is retried, and pgbench's runtime error messages.
//
// A Config is compiled once for all clients: every variable a script names
// gets a slot, so a client stores variables in a slice and the steady state
// of a transaction (evaluating \set, rendering parameters, sending
// statements) allocates nothing.
package interp
