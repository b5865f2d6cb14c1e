// Package pg is target's driver for PostgreSQL-wire servers (PostgreSQL,
// CockroachDB, YugabyteDB, and poolers in front of them), built on pgx:
// sessions and pools, pgbench's script protocol (target.ScriptConn),
// COPY (target.Copier), libpq's wording of errors (target.ConnectWorder,
// target.ConnInfoer), the password a connection finds
// (target.PasswordFinder), and a pooler's admin console (OpenAdmin). It
// registers itself with target for postgres:// URLs and its console reader
// with pooler, and is the only package importing pgx.
package pg
