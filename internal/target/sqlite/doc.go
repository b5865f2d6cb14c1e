// Package sqlite is target's driver for embedded SQLite (modernc.org/sqlite,
// pure Go) in a named or temporary file: sessions and pools over
// database/sql, the script engine's statements (target.ScriptConn) and
// bulk loads as multi-row INSERTs (target.Copier). It registers itself for
// sqlite: specs and is the only package importing modernc.org/sqlite.
package sqlite
