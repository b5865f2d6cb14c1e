// Package emulate is `txnbench pgbench`: pgbench 17's command line (or
// 15's: release.go), run and report on txnbench's runner. It reads
// pgbench's options as glibc's getopt_long reads them (getopt.go), checks
// them with pgbench's messages, runs the scripts (or -i) through job,
// writes pgbench's transaction logs (log.go) and prints pgbench's report.
// Main is its entry point; it prints only to the writers its Env gives and
// returns the exit status, which internal/cli exits with.
package emulate
