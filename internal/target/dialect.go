package target

import (
	"regexp"
	"strconv"
	"strings"
)

// Dialect names a database engine and version and says what it supports.
// Workloads read Capabilities, never Name, to choose their SQL.
type Dialect struct {
	Name    string // PostgreSQL, CockroachDB, YugabyteDB or SQLite
	Version string // the engine's own version, e.g. 15.18 or v23.2.1
	// Banner is the full version string the server reported.
	Banner string
	// Embedded: the engine runs inside txnbench's process, so txnbench's
	// CPU use includes the engine's work.
	Embedded bool
	Caps     Capabilities
}

// Capabilities is what a dialect supports, as workloads need to know it.
type Capabilities struct {
	// SkipLocked: SELECT ... FOR UPDATE SKIP LOCKED. Without it the dialect
	// has a single writer (SQLite) and Begin already excludes other writers.
	SkipLocked bool
	// JSONB: a binary JSON type with in-place updates.
	JSONB bool
	// GeneratedColumns: stored columns computed from other columns.
	GeneratedColumns bool
	// Enums: CREATE TYPE ... AS ENUM.
	Enums bool
	// ArrayParams: array parameters that unnest() turns into rows. Without
	// them, batches travel as one JSON array that json_each() unpacks.
	ArrayParams bool
	// InvertedIndex is the DDL template for an inverted (GIN-like) index on a
	// JSON column with {name}, {table} and {column} placeholders; "" if none.
	InvertedIndex string
	// Types and expressions in this dialect's spelling.
	UUIDType, JSONType, TimestampType, Now string
	// RetriesSerialization: the engine reports serialization failures that a
	// client is expected to retry (CockroachDB does so routinely).
	RetriesSerialization bool
	// AdvisoryLocks: pg_try_advisory_lock and pg_advisory_unlock, locks held
	// by a session across transactions (CockroachDB has none; YugabyteDB
	// only from 2.25 on, so it is not assumed).
	AdvisoryLocks bool
	// StatViews: PostgreSQL's statistics views (pg_stat_database,
	// pg_stat_statements, ...) kept as PostgreSQL keeps them, which
	// database telemetry reads.
	StatViews bool
	// PostgresDDL: PostgreSQL's DDL and maintenance statements as pgbench's
	// initialisation uses them (TRUNCATE, ALTER TABLE ... ADD PRIMARY KEY
	// and FOREIGN KEY, partitioning, fillfactor, tablespaces, unlogged
	// tables, VACUUM, COPY ... FREEZE, generate_series, char padding).
	PostgresDDL bool
	// StatsReset resets the server's statistics counters, so runs compared
	// in a study start alike; "" when there is no such statement.
	StatsReset string
	// ListenNotify: LISTEN and NOTIFY (pg_notify), wake-ups a session
	// receives between its transactions (CockroachDB and YugabyteDB have
	// none).
	ListenNotify bool
}

// InvertedIndexDDL returns the statement creating an inverted index, or ""
// when the dialect has none.
func (c Capabilities) InvertedIndexDDL(name, table, column string) string {
	if c.InvertedIndex == "" {
		return ""
	}
	return strings.NewReplacer("{name}", name, "{table}", table, "{column}", column).Replace(c.InvertedIndex)
}

var (
	crdbVersion = regexp.MustCompile(`CockroachDB \S+ (v\d+\.\d+\.\d+\S*)`)
	ybVersion   = regexp.MustCompile(`PostgreSQL (\d+)(?:\.\d+)?-YB-(\d+(?:\.\d+)*)`)
	pgVersion   = regexp.MustCompile(`PostgreSQL (\d+)(?:\.(\d+))?`)
)

// ParseBanner derives the dialect from what SELECT version() returned.
func ParseBanner(banner string) Dialect {
	pgFamily := Capabilities{
		SkipLocked: true, JSONB: true, GeneratedColumns: true, Enums: true, ArrayParams: true,
		InvertedIndex: "CREATE INDEX {name} ON {table} USING gin ({column})",
		UUIDType:      "uuid", JSONType: "jsonb", TimestampType: "timestamptz", Now: "now()",
		StatsReset: "SELECT pg_stat_reset()", AdvisoryLocks: true,
		StatViews: true, PostgresDDL: true, ListenNotify: true,
	}
	if m := crdbVersion.FindStringSubmatch(banner); m != nil {
		c := pgFamily
		c.InvertedIndex = "CREATE INVERTED INDEX {name} ON {table} ({column})"
		c.RetriesSerialization = true
		c.StatsReset = ""
		c.AdvisoryLocks = false
		c.StatViews = false
		c.ListenNotify = false
		return Dialect{Name: "CockroachDB", Version: m[1], Banner: banner, Caps: c}
	}
	if m := ybVersion.FindStringSubmatch(banner); m != nil {
		c := pgFamily
		c.InvertedIndex = "CREATE INDEX {name} ON {table} USING ybgin ({column})"
		major, _ := strconv.Atoi(m[1])
		c.GeneratedColumns = major >= 12
		c.RetriesSerialization = true
		c.AdvisoryLocks = false
		c.StatViews = false
		c.ListenNotify = false
		return Dialect{Name: "YugabyteDB", Version: m[2], Banner: banner, Caps: c}
	}
	d := Dialect{Name: "PostgreSQL", Banner: banner, Caps: pgFamily}
	if m := pgVersion.FindStringSubmatch(banner); m != nil {
		d.Version = m[1]
		if m[2] != "" {
			d.Version += "." + m[2]
		}
		major, _ := strconv.Atoi(m[1])
		d.Caps.GeneratedColumns = major >= 12
	}
	return d
}
