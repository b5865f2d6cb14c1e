package sqlite

import (
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
)

// sqliteDialect is SQLite of the given version as the pure-Go driver ships it.
func sqliteDialect(version string) target.Dialect {
	return target.Dialect{
		Name: "SQLite", Version: version, Banner: "SQLite " + version, Embedded: true,
		Isolation: target.Serializable, // one writer at a time: see Isolate
		Caps: target.Capabilities{
			JSONB: versionAtLeast(version, 3, 45), GeneratedColumns: true,
			UpdateReturning: versionAtLeast(version, 3, 35), DeleteReturning: versionAtLeast(version, 3, 35), JSONEach: true,
			UUIDType: "TEXT", JSONType: "BLOB", TimestampType: "TEXT",
			Now:           "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
			ReadOnlyAfter: "PRAGMA query_only = ON", ReadOnlyUndo: "PRAGMA query_only = OFF",
		},
	}
}

func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(parts[1])
	return ma > major || ma == major && mi >= minor
}
