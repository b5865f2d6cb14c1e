package trainevents

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// eventTypes are the kinds of railway event.
var eventTypes = []string{
	"ROUTE_AUTHORIZATION", "SIGNAL_CLEAR", "SPEED_RESTRICTION", "TRACK_OUT_OF_SERVICE",
	"TRAIN_POSITION_UPDATE", "SWITCH_POSITION_CHANGE", "WORK_ZONE_PROTECTION",
	"CROSSING_FAILURE", "POWER_OUTAGE", "DISPATCH_NOTE",
}

// The statuses an event moves through; FAILED and COMPLETE end processing.
const (
	statusPending    = "PENDING"
	statusProcessing = "PROCESSING"
	statusComplete   = "COMPLETE"
	statusFailed     = "FAILED"
)

var statuses = []string{statusPending, statusProcessing, statusComplete, statusFailed}

// adapt fits a variant to what the dialect supports. What cannot be had is
// dropped with a note, so a comparison on that engine stays possible and the
// report says what differed.
func adapt(v variant, caps target.Capabilities, dialect string) (variant, []string) {
	var notes []string
	if v.InvertedIndex && caps.InvertedIndex == "" {
		v.InvertedIndex = false
		notes = append(notes, dialect+" has no inverted index: the payload is not indexed")
	}
	if !v.ManualColumns && !caps.GeneratedColumns {
		v.ManualColumns = true
		notes = append(notes, dialect+" has no generated columns: the application writes the flat columns")
	}
	if !caps.ArrayParams && !caps.JSONEach && caps.JSONTable {
		notes = append(notes, dialect+" has no array parameters or UPDATE ... FROM: each batch is one JSON array that JSON_TABLE expands, and updates join it")
	}
	if !v.TextPayload && !caps.JSONB && caps.JSONTable {
		notes = append(notes, dialect+"'s JSON is text checked as JSON: process rewrites each payload with JSON_SET, nothing is updated in place")
	}
	return v, notes
}

// schema is the SQL of one variant on one dialect: its DDL and the
// statements of the three ops.
type schema struct {
	events, status, archive string // table names
	eventTypeType           string // type of events.event_type; "" = text with CHECK
	textPayload             bool
	ddl, drop               []string
	tables                  workload.Schema // the variant's tables and their mark

	insertEvents, insertStatus  string
	insertNoIDs                 bool // insertEvents returns no ids: they are the batch's own
	selectProcess, updateStatus string
	updatePayload               string
	selectArchive, copyArchive  string
	deleteEvents                string
	countTotal                  string
}

func inList(vals []string) string {
	return "'" + strings.Join(vals, "', '") + "'"
}

// newSchema builds the SQL of variant v (as adapted to the dialect) with
// tables named after name, the variant that was asked for.
func newSchema(name string, v variant, c target.Capabilities) schema {
	n := name
	s := schema{events: "events_" + n, status: "events_" + n + "_status", archive: "events_" + n + "_archive", textPayload: v.TextPayload}
	payloadType := c.JSONType
	if v.TextPayload {
		payloadType = "TEXT"
	}
	typeCheck := "CHECK (event_type IN (" + inList(eventTypes) + "))"
	keyText := c.KeyTextType()
	eventTypeCol := "event_type " + keyText + " NOT NULL " + typeCheck
	if v.ManualColumns && c.Enums {
		s.eventTypeType = s.events + "_event_type"
		s.ddl = append(s.ddl, fmt.Sprintf("CREATE TYPE %s AS ENUM (%s)", s.eventTypeType, inList(eventTypes)))
		eventTypeCol = "event_type " + s.eventTypeType + " NOT NULL"
	}
	archiveTypeCol := eventTypeCol

	var flat []string
	if v.ManualColumns {
		flat = []string{eventTypeCol, "authority_id " + c.UUIDType + " NOT NULL", "train_id TEXT NOT NULL"}
	} else {
		gen := generatedExprs(v, c)
		flat = []string{
			fmt.Sprintf("event_type %s GENERATED ALWAYS AS (%s) STORED %s", keyText, gen[0], typeCheck),
			fmt.Sprintf("authority_id %s GENERATED ALWAYS AS (%s) STORED", c.UUIDType, gen[1]),
			fmt.Sprintf("train_id TEXT GENERATED ALWAYS AS (%s) STORED", gen[2]),
		}
		archiveTypeCol = "event_type " + keyText + " NOT NULL " + typeCheck
	}
	s.ddl = append(s.ddl,
		fmt.Sprintf("CREATE TABLE %s (\n  id %s PRIMARY KEY,\n  created_at %s NOT NULL DEFAULT %s,\n  payload %s NOT NULL,\n  %s\n)",
			s.events, c.UUIDType, c.TimestampType, c.Now, payloadType, strings.Join(flat, ",\n  ")),
		fmt.Sprintf("CREATE INDEX %s_type_created ON %s (event_type, created_at DESC)", s.events, s.events),
		fmt.Sprintf("CREATE INDEX %s_authority ON %s (authority_id)", s.events, s.events),
	)
	if v.InvertedIndex {
		s.ddl = append(s.ddl, c.InvertedIndexDDL(s.events+"_payload_inv", s.events, "payload"))
	}
	s.ddl = append(s.ddl,
		fmt.Sprintf("CREATE TABLE %s (\n  event_id %s PRIMARY KEY REFERENCES %s (id) ON DELETE CASCADE,\n  status %s NOT NULL CHECK (status IN (%s)),\n  updated_at %s NOT NULL DEFAULT %s\n)",
			s.status, c.UUIDType, s.events, keyText, inList(statuses), c.TimestampType, c.Now),
		fmt.Sprintf("CREATE INDEX %s_status_updated ON %s (status, updated_at)", s.status, s.status),
		fmt.Sprintf("CREATE TABLE %s (\n  id %s PRIMARY KEY,\n  archived_at %s NOT NULL DEFAULT %s,\n  payload %s NOT NULL,\n  %s,\n  authority_id %s NOT NULL,\n  created_at %s NOT NULL,\n  train_id TEXT NOT NULL\n)",
			s.archive, c.UUIDType, c.TimestampType, c.Now, payloadType, archiveTypeCol, c.UUIDType, c.TimestampType),
	)
	s.tables = workload.Schema{Data: "train-events " + name, What: name + " tables", Names: []string{s.archive, s.status, s.events}}
	for _, t := range s.tables.Names {
		s.drop = append(s.drop, "DROP TABLE IF EXISTS "+t)
	}
	if c.Enums {
		s.drop = append(s.drop, "DROP TYPE IF EXISTS "+s.events+"_event_type")
	}
	s.countTotal = fmt.Sprintf("SELECT (SELECT count(*) FROM %s) + (SELECT count(*) FROM %s)", s.events, s.archive)
	switch {
	case c.ArrayParams:
		s.arrayStatements(v, c)
	case c.JSONEach:
		s.jsonStatements(v, c)
	default:
		s.jsonTableStatements(v, c)
	}
	s.tag()
	return s
}

// tag prefixes each op's statements with its workload.OpTag, so the
// server's statement statistics can be told apart by op.
func (s *schema) tag() {
	for op, qs := range map[string][]*string{
		opAdd:     {&s.insertEvents, &s.insertStatus},
		opProcess: {&s.selectProcess, &s.updateStatus, &s.updatePayload},
		opArchive: {&s.selectArchive, &s.copyArchive, &s.deleteEvents},
	} {
		for _, q := range qs {
			*q = workload.OpTag(op) + *q
		}
	}
}

// generatedExprs returns the expressions of the generated event_type,
// authority_id and train_id columns.
func generatedExprs(v variant, c target.Capabilities) [3]string {
	if c.JSONTable && !c.ArrayParams { // MariaDB, MySQL: JSON is text checked as JSON
		return [3]string{
			"JSON_VALUE(payload, '$.eventType')",
			"JSON_VALUE(payload, '$.authorityId')",
			"JSON_VALUE(payload, '$.train.trainId')",
		}
	}
	if !c.ArrayParams { // SQLite: json_extract reads TEXT and JSONB alike
		return [3]string{
			"json_extract(payload, '$.eventType')",
			"json_extract(payload, '$.authorityId')",
			"json_extract(payload, '$.train.trainId')",
		}
	}
	doc := "payload"
	if v.TextPayload {
		doc = "(payload::jsonb)" // text to jsonb is immutable, so it may be generated
	}
	return [3]string{
		doc + "->>'eventType'",
		"(" + doc + "->>'authorityId')::uuid",
		doc + "->'train'->>'trainId'",
	}
}

// arrayStatements: batches travel as typed arrays that unnest() expands.
func (s *schema) arrayStatements(v variant, c target.Capabilities) {
	ptype := "jsonb"
	if v.TextPayload {
		ptype = "text"
	}
	if v.ManualColumns {
		etype := "text"
		if s.eventTypeType != "" {
			etype = s.eventTypeType
		}
		// The payloads go last: pgx appends each parameter to an outgoing
		// buffer it trims after every flush, so a small array after the
		// payloads would regrow the buffer that was just grown to fit them.
		s.insertEvents = fmt.Sprintf("INSERT INTO %s (id, event_type, authority_id, train_id, payload) SELECT * FROM unnest($1::uuid[], $2::%s[], $3::uuid[], $4::text[], $5::%s[]) RETURNING id",
			s.events, etype, ptype)
	} else {
		s.insertEvents = fmt.Sprintf("INSERT INTO %s (id, payload) SELECT * FROM unnest($1::uuid[], $2::%s[]) RETURNING id", s.events, ptype)
	}
	s.insertStatus = fmt.Sprintf("INSERT INTO %s (event_id, status) SELECT unnest($1::uuid[]), '%s'", s.status, statusPending)
	lock := " FOR UPDATE SKIP LOCKED"
	if !c.SkipLocked {
		lock = " FOR UPDATE"
	}
	s.selectProcess = s.processSelect(lock)
	s.updateStatus = fmt.Sprintf("UPDATE %s AS s SET status = u.status, updated_at = %s FROM unnest($1::uuid[], $2::text[]) AS u(id, status) WHERE s.event_id = u.id", s.status, c.Now)
	if v.TextPayload {
		s.updatePayload = fmt.Sprintf("UPDATE %s AS e SET payload = u.payload FROM unnest($1::uuid[], $2::text[]) AS u(id, payload) WHERE e.id = u.id", s.events)
	} else {
		s.updatePayload = fmt.Sprintf("UPDATE %s AS e SET payload = jsonb_set(jsonb_set(e.payload, '{state}', to_jsonb(u.state)), '{metrics,flags,fleeted}', to_jsonb(u.fleeted)) FROM unnest($1::uuid[], $2::text[], $3::bool[]) AS u(id, state, fleeted) WHERE e.id = u.id", s.events)
	}
	s.selectArchive = s.archiveSelect() + lock
	s.copyArchive = s.archiveCopy("id = ANY($1::uuid[])")
	s.deleteEvents = fmt.Sprintf("DELETE FROM %s WHERE id = ANY($1::uuid[])", s.events)
}

// jsonStatements: batches travel as one JSON array that json_each()
// expands. Used where there are no array parameters (SQLite), where Begin
// takes the single write lock, so no row locks are needed.
func (s *schema) jsonStatements(v variant, c target.Capabilities) {
	payload := "jsonb(j.value->1)"
	if v.TextPayload {
		payload = "j.value->1"
	}
	if v.ManualColumns {
		s.insertEvents = fmt.Sprintf("INSERT INTO %s (id, payload, event_type, authority_id, train_id) SELECT j.value->>0, %s, j.value->>2, j.value->>3, j.value->>4 FROM json_each($1) AS j RETURNING id", s.events, payload)
	} else {
		s.insertEvents = fmt.Sprintf("INSERT INTO %s (id, payload) SELECT j.value->>0, %s FROM json_each($1) AS j RETURNING id", s.events, payload)
	}
	s.insertStatus = fmt.Sprintf("INSERT INTO %s (event_id, status) SELECT value, '%s' FROM json_each($1)", s.status, statusPending)
	s.selectProcess = s.processSelect("")
	// json_each has columns of its own (id among them): qualify everything.
	s.updateStatus = fmt.Sprintf("UPDATE %s AS s SET status = j.value->>1, updated_at = %s FROM json_each($1) AS j WHERE s.event_id = j.value->>0", s.status, c.Now)
	if v.TextPayload {
		s.updatePayload = fmt.Sprintf("UPDATE %s AS e SET payload = j.value->1 FROM json_each($1) AS j WHERE e.id = j.value->>0", s.events)
	} else {
		s.updatePayload = fmt.Sprintf("UPDATE %s AS e SET payload = jsonb_set(e.payload, '$.state', j.value->>1, '$.metrics.flags.fleeted', j.value->2) FROM json_each($1) AS j WHERE e.id = j.value->>0", s.events)
	}
	s.selectArchive = s.archiveSelect()
	in := "id IN (SELECT value FROM json_each($1))"
	s.copyArchive = s.archiveCopy(in)
	s.deleteEvents = fmt.Sprintf("DELETE FROM %s WHERE %s", s.events, in)
}

// jsonTableStatements: batches travel as one JSON array, as for
// json_each(), that JSON_TABLE expands (MariaDB, MySQL). There is no
// UPDATE ... FROM: updates and deletes join the expanded rows (UPDATE t
// JOIN ... SET, DELETE t FROM t JOIN ...), which finds each row by its key
// where an IN subquery would scan the table. There is no INSERT ...
// RETURNING on MySQL, so the insert returns nothing and the ids are the
// batch's own, its row count checked. InnoDB locks every row a locking
// read examines, so the oldest PENDING and the oldest PROCESSING rows are
// read from the index one status at a time (a sort of both would lock them
// all); the TEXT payloads come through a derived table, as there is no
// LIMIT in an IN subquery.
func (s *schema) jsonTableStatements(v variant, c target.Capabilities) {
	const id = "id CHAR(36) PATH '$[0]'"
	rows := func(cols string) string { return "JSON_TABLE($1, '$[*]' COLUMNS (" + cols + ")) AS j" }
	ids := rows("id CHAR(36) PATH '$'")
	s.insertNoIDs = true
	if v.ManualColumns {
		s.insertEvents = fmt.Sprintf("INSERT INTO %s (id, payload, event_type, authority_id, train_id) SELECT j.id, j.payload, j.event_type, j.authority_id, j.train_id FROM %s",
			s.events, rows(id+", payload JSON PATH '$[1]', event_type VARCHAR(64) PATH '$[2]', authority_id CHAR(36) PATH '$[3]', train_id VARCHAR(64) PATH '$[4]'"))
	} else {
		s.insertEvents = fmt.Sprintf("INSERT INTO %s (id, payload) SELECT j.id, j.payload FROM %s", s.events, rows(id+", payload JSON PATH '$[1]'"))
	}
	s.insertStatus = fmt.Sprintf("INSERT INTO %s (event_id, status) SELECT j.id, '%s' FROM %s", s.status, statusPending, ids)
	lock := " FOR UPDATE SKIP LOCKED"
	if !c.SkipLocked {
		lock = " FOR UPDATE"
	}
	oldest := func(status string) string {
		return fmt.Sprintf("(SELECT event_id, updated_at FROM %s WHERE status = '%s' ORDER BY updated_at LIMIT $1%s)", s.status, status, lock)
	}
	pick := oldest(statusPending) + " UNION ALL " + oldest(statusProcessing) + " ORDER BY updated_at LIMIT $1"
	if s.textPayload {
		s.selectProcess = fmt.Sprintf("SELECT e.id, e.payload FROM %s AS e JOIN (%s) AS p ON e.id = p.event_id", s.events, pick)
	} else {
		s.selectProcess = "SELECT p.event_id FROM (" + pick + ") AS p"
	}
	s.updateStatus = fmt.Sprintf("UPDATE %s AS s JOIN %s ON s.event_id = j.id SET s.status = j.status, s.updated_at = %s",
		s.status, rows(id+", status VARCHAR(16) PATH '$[1]'"), c.Now)
	if v.TextPayload {
		s.updatePayload = fmt.Sprintf("UPDATE %s AS e JOIN %s ON e.id = j.id SET e.payload = j.payload", s.events, rows(id+", payload JSON PATH '$[1]'"))
	} else {
		// JSON_EXTRACT keeps the flag a JSON boolean (a plain column would be 1 or 0).
		s.updatePayload = fmt.Sprintf("UPDATE %s AS e JOIN %s ON e.id = j.id SET e.payload = JSON_SET(e.payload, '$.state', j.state, '$.metrics.flags.fleeted', JSON_EXTRACT(j.fleeted, '$'))",
			s.events, rows(id+", state VARCHAR(16) PATH '$[1]', fleeted JSON PATH '$[2]'"))
	}
	s.selectArchive = s.archiveSelect() + lock
	s.copyArchive = fmt.Sprintf("INSERT INTO %s (id, payload, event_type, authority_id, created_at, train_id) SELECT e.id, e.payload, e.event_type, e.authority_id, e.created_at, e.train_id FROM %s AS e JOIN %s ON e.id = j.id",
		s.archive, s.events, ids)
	s.deleteEvents = fmt.Sprintf("DELETE e FROM %s AS e JOIN %s ON e.id = j.id", s.events, ids)
}

// processSelect picks (and, with lock, locks) the oldest events still to
// process. For a TEXT payload it reads the payloads of exactly those
// events, which the client rewrites: the locked status rows guard them.
func (s *schema) processSelect(lock string) string {
	pick := fmt.Sprintf("SELECT event_id FROM %s WHERE status IN ('%s', '%s') ORDER BY updated_at LIMIT $1%s",
		s.status, statusPending, statusProcessing, lock)
	if !s.textPayload {
		return pick
	}
	return fmt.Sprintf("SELECT id, payload FROM %s WHERE id IN (%s)", s.events, pick)
}

func (s *schema) archiveSelect() string {
	return fmt.Sprintf("SELECT event_id FROM %s WHERE status = '%s' ORDER BY updated_at LIMIT $1", s.status, statusComplete)
}

func (s *schema) archiveCopy(where string) string {
	return fmt.Sprintf("INSERT INTO %s (id, payload, event_type, authority_id, created_at, train_id) SELECT id, payload, event_type, authority_id, created_at, train_id FROM %s WHERE %s",
		s.archive, s.events, where)
}
