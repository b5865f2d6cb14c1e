// Package localdb starts and removes throwaway local PostgreSQL clusters for
// --db temp-postgres and for integration tests.
//
// A cluster lives in its own directory under os.TempDir() (txnbench-pg-*),
// listens only on 127.0.0.1 on a port below 32768 and keeps its Unix socket in
// that directory, so it never touches a system cluster or /var/run/postgresql.
// Stop shuts the server down and removes the directory; CleanStale removes
// directories left behind by a txnbench that was killed before it could.
//
// initdb and postgres refuse to run as root: when txnbench runs as root they
// run as the postgres user (or nobody) instead.
//
// The package talks to the server only through its files (postmaster.pid,
// postmaster.opts) and its process; it imports no database driver.
package localdb
