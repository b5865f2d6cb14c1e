package target

import (
	"regexp"
	"strconv"
	"strings"
	"time"
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
	// Isolation is the level the server's sessions run at unless asked
	// (--isolation), as read from it when the target was opened.
	Isolation Isolation
	Caps      Capabilities
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
	// UpdateReturning: UPDATE ... RETURNING (MariaDB and MySQL have
	// none: a transaction selects the rows FOR UPDATE, then updates them).
	UpdateReturning bool
	// DeleteReturning: DELETE ... RETURNING (MariaDB has it, from 10.0,
	// though it has no UPDATE ... RETURNING; MySQL has neither).
	DeleteReturning bool
	// ModifyingCTEs: INSERT, UPDATE and DELETE in WITH, and SELECT ...
	// FOR UPDATE in a WITH that a statement's UPDATE joins, so one
	// statement can lock rows in a chosen order, update several tables and
	// return what it changed (the PostgreSQL family).
	ModifyingCTEs bool
	// JSONEach: json_each(json) expands a JSON array into rows, for
	// batches where there are no array parameters (SQLite).
	JSONEach bool
	// JSONTable: JSON_TABLE(json, '$[*]' COLUMNS (...)), rows from a JSON
	// array, for batches where there are neither array parameters nor
	// json_each().
	JSONTable bool
	// AnalyzeTable is the statement that refreshes a table's planner
	// statistics, {table} its placeholder; "" means ANALYZE {table}.
	AnalyzeTable string
	// KeyText is the type of a text column that is a key or indexed
	// whole; "" means TEXT (MySQL indexes TEXT only by a prefix).
	KeyText string
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
	// ConcatFunction: strings are joined with CONCAT(a, b), || being OR
	// (MySQL's default sql_mode).
	ConcatFunction bool
	// TimestampLayout is the Go time layout of a timestamp literal the
	// dialect accepts; "" means RFC 3339 with its zone (2006-01-02T15:04:05Z).
	TimestampLayout string
	// ServerStatus: the server's status variables (SHOW GLOBAL STATUS) and
	// performance_schema's statement digests, as MySQL-protocol servers
	// keep them, which database telemetry reads where there are no
	// StatViews.
	ServerStatus bool
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
	// ReadOnlyBefore and ReadOnlyAfter make the next transaction refuse
	// writes, run right before Begin (MySQL's SET TRANSACTION READ ONLY,
	// which applies to the next transaction) or right after it
	// (PostgreSQL's); ReadOnlyUndo ends a setting that outlives the
	// transaction (SQLite's PRAGMA query_only). See ReadOnly.
	ReadOnlyBefore, ReadOnlyAfter, ReadOnlyUndo string
	// Procedures is the language of server-side functions and procedures
	// ("plpgsql": PostgreSQL's functions; "sql/psm": MariaDB's and MySQL's
	// stored procedures), "" when there is none (SQLite).
	Procedures string
}

// AnalyzeSQL is the statement refreshing table's planner statistics.
func (c Capabilities) AnalyzeSQL(table string) string {
	if c.AnalyzeTable == "" {
		return "ANALYZE " + table
	}
	return strings.ReplaceAll(c.AnalyzeTable, "{table}", table)
}

// TimestampText is t, a timestamp in RFC 3339 (UTC, with its Z), as a
// literal the dialect accepts.
func (c Capabilities) TimestampText(t string) string {
	if c.TimestampLayout == "" {
		return t
	}
	tm, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return t
	}
	return tm.UTC().Format(c.TimestampLayout)
}

// KeyTextType is KeyText, TEXT when the dialect indexes TEXT whole.
func (c Capabilities) KeyTextType() string {
	if c.KeyText == "" {
		return "TEXT"
	}
	return c.KeyText
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

// ParseBanner derives the dialect from what SELECT version() returned: a
// PostgreSQL-wire server's (PostgreSQL, CockroachDB, YugabyteDB) or a
// MySQL-protocol server's (MariaDB, MySQL), whose banner starts with its
// version.
func ParseBanner(banner string) Dialect {
	if mysqlVersion.MatchString(banner) {
		return parseMySQLBanner(banner)
	}
	pgFamily := Capabilities{
		SkipLocked: true, JSONB: true, GeneratedColumns: true, Enums: true, ArrayParams: true,
		InvertedIndex: "CREATE INDEX {name} ON {table} USING gin ({column})",
		UUIDType:      "uuid", JSONType: "jsonb", TimestampType: "timestamptz", Now: "now()",
		StatsReset: "SELECT pg_stat_reset()", AdvisoryLocks: true,
		StatViews: true, PostgresDDL: true, ListenNotify: true, UpdateReturning: true, DeleteReturning: true, ModifyingCTEs: true,
		ReadOnlyAfter: "SET TRANSACTION READ ONLY", Procedures: "plpgsql",
	}
	if m := crdbVersion.FindStringSubmatch(banner); m != nil {
		c := pgFamily
		c.InvertedIndex = "CREATE INVERTED INDEX {name} ON {table} ({column})"
		c.RetriesSerialization = true
		c.StatsReset = ""
		c.AdvisoryLocks = false
		c.StatViews = false
		c.ListenNotify = false
		c.Procedures = "" // PL/pgSQL from 23.2 only, without all of it
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

// mysqlVersion matches the version at the start of SELECT version():
// "10.11.6-MariaDB-0+deb12u1", "8.0.36" or "8.4.2-log".
var mysqlVersion = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?`)

// parseMySQLBanner derives a MySQL-protocol server's dialect from what
// SELECT version() returned. MariaDB names itself in the banner; a
// banner without its name is MySQL.
func parseMySQLBanner(banner string) Dialect {
	d := Dialect{Name: "MySQL", Banner: banner}
	if strings.Contains(banner, "MariaDB") {
		d.Name = "MariaDB"
	}
	var major, minor int
	if m := mysqlVersion.FindStringSubmatch(banner); m != nil {
		major, _ = strconv.Atoi(m[1])
		minor, _ = strconv.Atoi(m[2])
		d.Version = strings.TrimSuffix(m[0], ".")
	}
	atLeast := func(ma, mi int) bool { return major > ma || major == ma && minor >= mi }
	c := Capabilities{
		GeneratedColumns: true, // MariaDB 10.2, MySQL 5.7
		KeyText:          "VARCHAR(255)",
		AnalyzeTable:     "ANALYZE TABLE {table}",
		JSONType:         "JSON",
		UUIDType:         "CHAR(36)",
		TimestampType:    "DATETIME(6)",
		Now:              "CURRENT_TIMESTAMP(6)",
		ServerStatus:     true,
		ConcatFunction:   true,
		TimestampLayout:  "2006-01-02 15:04:05.000000", // DATETIME takes no zone
		ReadOnlyBefore:   "SET TRANSACTION READ ONLY",
		Procedures:       "sql/psm",
	}
	if d.Name == "MariaDB" {
		// SKIP LOCKED and JSON_TABLE from 10.6; JSON is LONGTEXT checked as JSON, so no
		// binary JSON; a native UUID type from 10.7.
		c.SkipLocked = atLeast(10, 6)
		c.JSONTable = atLeast(10, 6)
		c.DeleteReturning = true
		if atLeast(10, 7) {
			c.UUIDType = "UUID"
		}
	} else {
		// SKIP LOCKED, JSON_TABLE and a binary JSON type with partial
		// in-place updates from 8.0.
		c.SkipLocked = atLeast(8, 0)
		c.JSONB = atLeast(8, 0)
		c.JSONTable = atLeast(8, 0)
	}
	d.Caps = c
	return d
}
