// Package pg is target's driver for PostgreSQL-wire servers (PostgreSQL,
// CockroachDB, YugabyteDB, and poolers in front of them), built on pgx:
// sessions and pools, pgbench's script protocol (target.ScriptConn),
// COPY (target.Copier), libpq's wording of errors, and a pooler's admin
// console (AdminRows). It registers itself for postgres:// URLs and is,
// with localdb, the only package importing pgx.
package pg
