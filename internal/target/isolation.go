package target

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Isolation is a transaction isolation level as --isolation names it;
// the zero value is the engine's default (what the server is set to).
type Isolation string

// The levels, weakest first.
const (
	DefaultIsolation Isolation = ""
	ReadUncommitted  Isolation = "read-uncommitted"
	ReadCommitted    Isolation = "read-committed"
	RepeatableRead   Isolation = "repeatable-read"
	Serializable     Isolation = "serializable"
)

// isolations is every level, weakest first.
var isolations = []Isolation{ReadUncommitted, ReadCommitted, RepeatableRead, Serializable}

// SQL is the level as SQL spells it: READ COMMITTED.
func (l Isolation) SQL() string {
	return strings.ToUpper(strings.ReplaceAll(string(l), "-", " "))
}

// ParseIsolation reads --isolation: one of the four levels, in --isolation's
// spelling or SQL's (READ COMMITTED), MySQL's (READ-COMMITTED) or
// PostgreSQL's (read committed).
func ParseIsolation(s string) (Isolation, error) {
	l := Isolation(strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "-", " ")), "-")))
	if slices.Contains(isolations, l) {
		return l, nil
	}
	return "", fmt.Errorf("unknown --isolation %q: choose read-uncommitted, read-committed, repeatable-read or serializable", s)
}

// Isolations are the levels an engine of kind k runs as asked: SQLite's
// transactions are all SERIALIZABLE (READ UNCOMMITTED needs a shared
// cache, which txnbench does not open); PostgreSQL runs READ UNCOMMITTED
// as READ COMMITTED, so it is not offered under a name it does not keep;
// MariaDB and MySQL have all four.
func Isolations(k SpecKind) []Isolation {
	switch k {
	case SQLiteTemp, SQLiteFile:
		return []Isolation{Serializable}
	case TempMariaDB, MySQLURL:
		return isolations
	}
	return []Isolation{ReadCommitted, RepeatableRead, Serializable}
}

// CheckIsolation refuses a level the engine of kind k does not run as
// asked, naming those it does.
func CheckIsolation(k SpecKind, l Isolation) error {
	have := Isolations(k)
	if l == DefaultIsolation || slices.Contains(have, l) {
		return nil
	}
	names := make([]string, len(have))
	for i, h := range have {
		names[i] = string(h)
	}
	engine := "PostgreSQL"
	switch k {
	case SQLiteTemp, SQLiteFile:
		return fmt.Errorf("--isolation %s: SQLite runs every transaction SERIALIZABLE; give --isolation serializable or leave it out", l)
	case TempMariaDB, MySQLURL:
		engine = "MariaDB"
	}
	return fmt.Errorf("--isolation %s: %s has no such level of its own; choose %s", l, engine, strings.Join(names, ", "))
}

// Isolator is a Target whose sessions can run at a chosen isolation
// level. Isolate is called once, before the first session is made; every
// session made afterwards runs its transactions at l.
// direct says the sessions reach the server itself, not a pooler, so
// that a setting of the session's own holds for all it runs.
type Isolator interface {
	Isolate(l Isolation, direct bool) error
}

// Isolate makes t's sessions run at l (nothing for the default level). A
// target that cannot is an error.
func Isolate(t Target, l Isolation, direct bool) error {
	if l == DefaultIsolation {
		return nil
	}
	i, ok := t.(Isolator)
	if !ok {
		return fmt.Errorf("--isolation %s: %s cannot set the isolation level", l, t.Dialect().Name)
	}
	return i.Isolate(l, direct)
}

// ReadIsolation is the level a new session c runs at unless asked, as
// query (the driver's) reads it from the server.
func ReadIsolation(ctx context.Context, c Conn, query string) (Isolation, error) {
	var v string
	if err := QueryRow(ctx, c, query, nil, &v); err != nil {
		return "", fmt.Errorf("reading the isolation level: %w", err)
	}
	return ParseIsolation(v)
}
