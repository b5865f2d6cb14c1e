// Package tempdir owns txnbench's temporary directories under
// os.TempDir(): New makes one (its name a prefix of the caller's kind, such
// as txnbench-pg- or txnbench-sqlite-), Claim records the process that
// owns it in a marker file (MarkerName: "PID STARTTIME"), and Sweep removes
// those whose owner is gone, left behind by a txnbench killed before it
// could (SIGKILL, out of memory). Whether a process is still the one
// recorded is Alive's answer, from kill(pid, 0) and /proc (Stat,
// StartTime), which internal/localdb asks of its servers too.
//
// tempdir is a leaf: internal/localdb (clusters, PgBouncers, HAProxy,
// MariaDB) and internal/target/sqlite (temporary SQLite files) use it alike.
package tempdir
