// Package setup initialises the pgbench tables as PostgreSQL 15's
// `pgbench -i` does: the same tables, options, data, steps (-I), errors and
// progress lines. It also reads back what pgbench's run mode reads from an
// initialised database: the scale and the partitioning of
// pgbench_accounts. On SQLite it builds the same tables and data where the
// SQL applies and refuses the options that cannot. It also loads the
// tables of txnbench's own builtins (YCSB's usertable, sysbench's sbtestN)
// and reads back their keys for their checks.
package setup
