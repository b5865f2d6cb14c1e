// Package script parses pgbench script files the way PostgreSQL 15's pgbench
// does (plus \syncpipeline from 17): SQL commands split at semicolons with
// :variable references, backslash meta commands, \if/\elif/\else/\endif with
// jump targets resolved at parse time. It also holds pgbench's three
// builtin scripts and txnbench's own (YCSB's core workloads and sysbench's
// OLTP scripts, found by whole name only), -b name lookup, file@weight and
// -D NAME=VALUE parsing, and the --show-script rendering.
package script
