package history

import (
	"fmt"
	"strings"
)

// Promise is the Level an engine's named isolation level promises, as its
// documentation (and Hermitage's tests of it) says: engine is a dialect's
// name (PostgreSQL, MariaDB, MySQL, SQLite; any case), named a level as
// --isolation spells it (read-committed, repeatable-read, serializable,
// read-uncommitted).
//
//   - PostgreSQL's REPEATABLE READ is snapshot isolation (write skew,
//     G2-item, allowed); READ UNCOMMITTED runs as READ COMMITTED; its
//     SERIALIZABLE is serializable snapshot isolation.
//   - MariaDB's and MySQL's REPEATABLE READ (InnoDB) reads from a snapshot
//     but writes and locking reads see the latest rows: lost updates,
//     read skew and write skew all happen (Hermitage), so it promises no
//     more than read committed.
//   - SQLite runs every transaction serializable.
//
// Without an engine, named is the Level itself (any of Levels).
func Promise(engine, named string) (Level, error) {
	l, err := ParseLevel(named)
	if engine == "" {
		return l, err
	}
	if err != nil || l == SnapshotIsolation || l == StrictSerializable {
		return "", fmt.Errorf("isolation level %q: give read-uncommitted, read-committed, repeatable-read or serializable", named)
	}
	switch strings.ToLower(engine) {
	case "postgresql", "postgres":
		switch l {
		case ReadUncommitted:
			return ReadCommitted, nil
		case RepeatableRead:
			return SnapshotIsolation, nil
		}
		return l, nil
	case "mariadb", "mysql":
		if l == RepeatableRead {
			return ReadCommitted, nil
		}
		return l, nil
	case "sqlite":
		return Serializable, nil
	}
	return "", fmt.Errorf("engine %q: give postgresql, mariadb, mysql or sqlite", engine)
}

// PromiseText says what Promise's level l is, for a report:
// "PostgreSQL's repeatable-read (checked as snapshot-isolation)",
// "SQLite's serializable", or l alone without an engine.
func PromiseText(engine, named string, l Level) string {
	if engine == "" {
		return string(l)
	}
	if e, ok := engines[strings.ToLower(engine)]; ok {
		engine = e
	}
	if string(l) == named {
		return fmt.Sprintf("%s's %s", engine, named)
	}
	return fmt.Sprintf("%s's %s (checked as %s)", engine, named, l)
}

// engines are the engines' names as their dialects spell them.
var engines = map[string]string{"postgresql": "PostgreSQL", "postgres": "PostgreSQL", "mariadb": "MariaDB", "mysql": "MySQL", "sqlite": "SQLite"}
