package workflow

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// The workload's tables.
const (
	tInstances = "workflow_instances"
	tSignals   = "workflow_signals"
	tDead      = "workflow_dead_letters"
	tHistory   = "workflow_history"
	tBlocks    = "workflow_id_blocks" // the blocks of instance ids runs took (idBits)
	// dataName names the tables' mark in txnbench_meta.
	dataName = "workflow"
)

// notifyChannel is the channel pg_notify wakes the workers on; its payload
// is the signal's due time (unix microseconds).
const notifyChannel = "workflow_signal"

// Instance states.
const (
	stateStarted   = "started"   // start committed, no signal yet
	stateWaiting   = "waiting"   // its signals published
	stateCompleted = "completed" // every signal applied
	stateFailed    = "failed"    // a signal was dead-lettered
)

// schema is the workload's SQL for one dialect and number of steps. Times
// are unix microseconds from the client's clock (every worker runs in the
// same process), so the SQL is the same on every dialect but for the
// claim's row locks and the wake-up.
type schema struct {
	tables    workload.Schema
	drop, ddl []string

	start        string // $1 id, $2 definition, $3 steps, $4 now, $5 business key
	publish      string // instance to waiting by id: $1 id, $2 now
	publishByKey string // the same by business key, RETURNING id: $1 key, $2 now
	// keyID reads the id of a business key ($1), after publishByKey
	// where the dialect has no UPDATE ... RETURNING; "" where it has.
	keyID         string
	insertSignals string // the steps' signals: $1 instance, $2 due, $3 payload
	notify        string // pg_notify with the due time as payload: $1 due; "" without
	readInstance  string // $1 id: state, completed_us
	claim         string // $1 worker, $2 lease until, $3 now, $4 batch: RETURNING instance_id, step, attempts, due_us
	// Without UPDATE ... RETURNING the claim is a transaction: pick
	// ($1 now, $2 batch: instance_id, step, attempts, due_us, locked),
	// then lease each ($1 worker, $2 lease until, $3 instance, $4 step);
	// claim is "" then.
	pick, lease   string
	readVersion   string       // $1 id: version, applied, steps
	advance       string       // $1 id, $2 version, $3 now
	takeSignal    string       // delete the signal while the lease is ours: $1 instance, $2 step, $3 worker, $4 attempts
	insertHistory string       // $1 instance, $2 step, $3 worker, $4 attempts, $5 now
	retryLater    string       // release with a new due time: $1 instance, $2 step, $3 worker, $4 attempts, $5 due
	insertDead    string       // $1 instance, $2 step, $3 attempts, $4 error, $5 now
	failInstance  string       // $1 id, $2 version, $3 now
	releaseLeases string       // $1 worker
	maxInstance   string       // the highest instance id
	checkCounts   []checkQuery // the invariant check's counts; $1 and $2 the run's first and last instance id
	leasesHeld    string       // $1 and $2 the run's first and last instance id: other runs' leases are not this run's
}

// checkQuery is one count of the invariant check: $1 and $2 are the run's
// first and last instance id and, when cutoff is set, $3 the creation time
// before which a workflow not final is stuck.
type checkQuery struct {
	name, sql string
	cutoff    bool
}

// newSchema builds the SQL for caps with steps signals per workflow;
// notify adds pg_notify to the publish.
func newSchema(caps target.Capabilities, steps int, notify bool) schema {
	var s schema
	s.tables = workload.Schema{Data: dataName, What: "workflow tables", Names: []string{tHistory, tDead, tSignals, tInstances, tBlocks}}
	for _, t := range s.tables.Names {
		s.drop = append(s.drop, "DROP TABLE IF EXISTS "+t)
	}
	s.ddl = []string{
		`CREATE TABLE ` + tInstances + ` (
  id BIGINT PRIMARY KEY,
  definition TEXT NOT NULL,
  business_key ` + caps.KeyTextType() + `,
  state TEXT NOT NULL,
  version INTEGER NOT NULL,
  steps INTEGER NOT NULL,
  applied INTEGER NOT NULL,
  created_us BIGINT NOT NULL,
  updated_us BIGINT NOT NULL,
  completed_us BIGINT
)`,
		"CREATE UNIQUE INDEX " + tInstances + "_key ON " + tInstances + " (business_key)",
		`CREATE TABLE ` + tSignals + ` (
  instance_id BIGINT NOT NULL,
  step INTEGER NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  due_us BIGINT NOT NULL,
  attempts INTEGER NOT NULL,
  lease_owner INTEGER,
  lease_until_us BIGINT,
  PRIMARY KEY (instance_id, step)
)`,
		"CREATE INDEX " + tSignals + "_due ON " + tSignals + " (due_us)",
		`CREATE TABLE ` + tDead + ` (
  instance_id BIGINT NOT NULL,
  step INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  error TEXT NOT NULL,
  dead_us BIGINT NOT NULL,
  PRIMARY KEY (instance_id, step)
)`,
		`CREATE TABLE ` + tHistory + ` (
  instance_id BIGINT NOT NULL,
  step INTEGER NOT NULL,
  worker INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  applied_us BIGINT NOT NULL,
  PRIMARY KEY (instance_id, step)
)`,
	}
	tag := workload.OpTag
	s.start = tag(opStart) + "INSERT INTO " + tInstances + " (id, definition, business_key, state, version, steps, applied, created_us, updated_us) VALUES ($1, $2, $5, '" + stateStarted + "', 0, $3, 0, $4, $4)"
	setWaiting := "UPDATE " + tInstances + " SET state = '" + stateWaiting + "', version = version + 1, updated_us = $2 WHERE "
	s.publish = tag(opPublish) + setWaiting + "id = $1 AND state = '" + stateStarted + "'"
	s.publishByKey = tag(opPublish) + setWaiting + "business_key = $1 AND state = '" + stateStarted + "' RETURNING id"
	if !caps.UpdateReturning {
		s.publishByKey = strings.TrimSuffix(s.publishByKey, " RETURNING id")
		s.keyID = tag(opPublish) + "SELECT id FROM " + tInstances + " WHERE business_key = $1"
	}
	var values []string
	for i := 0; i < steps; i++ {
		values = append(values, fmt.Sprintf("($1, %d, 'resume', $3, $2, 0)", i))
	}
	s.insertSignals = tag(opPublish) + "INSERT INTO " + tSignals + " (instance_id, step, kind, payload, due_us, attempts) VALUES " + strings.Join(values, ", ")
	if notify {
		s.notify = tag(opPublish) + "SELECT pg_notify('" + notifyChannel + "', $1::bigint::text)"
	}
	s.readInstance = tag(opAwait) + "SELECT state, completed_us FROM " + tInstances + " WHERE id = $1"
	lock := ""
	if caps.SkipLocked {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	due := " WHERE due_us <= $3 AND (lease_until_us IS NULL OR lease_until_us < $3) ORDER BY due_us LIMIT $4" + lock
	if caps.UpdateReturning {
		s.claim = tag(stepClaim) + "UPDATE " + tSignals + " SET lease_owner = $1, lease_until_us = $2, attempts = attempts + 1 WHERE (instance_id, step) IN (SELECT instance_id, step FROM " + tSignals +
			due + ") RETURNING instance_id, step, attempts, due_us"
	} else {
		s.pick = tag(stepClaim) + "SELECT instance_id, step, attempts, due_us FROM " + tSignals + strings.NewReplacer("$3", "$1", "$4", "$2").Replace(due)
		s.lease = tag(stepClaim) + "UPDATE " + tSignals + " SET lease_owner = $1, lease_until_us = $2, attempts = attempts + 1 WHERE instance_id = $3 AND step = $4"
	}
	s.readVersion = tag(stepApply) + "SELECT version, applied, steps FROM " + tInstances + " WHERE id = $1"
	s.advance = tag(stepApply) + "UPDATE " + tInstances + " SET version = version + 1, applied = applied + 1, updated_us = $3," +
		" state = CASE WHEN state = '" + stateWaiting + "' AND applied + 1 >= steps THEN '" + stateCompleted + "' ELSE state END," +
		" completed_us = CASE WHEN state = '" + stateWaiting + "' AND applied + 1 >= steps THEN $3 ELSE completed_us END" +
		" WHERE id = $1 AND version = $2"
	fenced := " WHERE instance_id = $1 AND step = $2 AND lease_owner = $3 AND attempts = $4"
	s.takeSignal = tag(stepApply) + "DELETE FROM " + tSignals + fenced
	s.insertHistory = tag(stepApply) + "INSERT INTO " + tHistory + " (instance_id, step, worker, attempts, applied_us) VALUES ($1, $2, $3, $4, $5)"
	s.retryLater = tag(stepApply) + "UPDATE " + tSignals + " SET lease_owner = NULL, lease_until_us = NULL, due_us = $5" + fenced
	s.insertDead = tag(stepApply) + "INSERT INTO " + tDead + " (instance_id, step, attempts, error, dead_us) VALUES ($1, $2, $3, $4, $5)"
	s.failInstance = tag(stepApply) + "UPDATE " + tInstances + " SET state = '" + stateFailed + "', version = version + 1, updated_us = $3 WHERE id = $1 AND version = $2"
	s.releaseLeases = "UPDATE " + tSignals + " SET lease_owner = NULL, lease_until_us = NULL WHERE lease_owner = $1"
	s.maxInstance = "SELECT COALESCE(MAX(id), 0) FROM " + tInstances

	count := func(t string) string {
		return "(SELECT count(*) FROM " + t + " AS x WHERE x.instance_id = i.id)"
	}
	outcomes := count(tHistory) + " + " + count(tSignals) + " + " + count(tDead)
	mine := "SELECT count(*) FROM " + tInstances + " AS i WHERE i.id BETWEEN $1 AND $2 AND "
	s.checkCounts = []checkQuery{
		{"started", "SELECT count(*) FROM " + tInstances + " AS i WHERE i.id BETWEEN $1 AND $2", false},
		{"stuck", mine + "i.state NOT IN ('" + stateCompleted + "', '" + stateFailed + "') AND i.created_us < $3", true},
		{"unfinished", mine + "i.state NOT IN ('" + stateCompleted + "', '" + stateFailed + "') AND i.created_us >= $3", true},
		{"failed", mine + "i.state = '" + stateFailed + "'", false},
		{"lost", mine + "i.state <> '" + stateStarted + "' AND i.steps > " + outcomes, false},
		{"twice", mine + "(i.applied > i.steps OR " + outcomes + " > i.steps)", false},
		{"unrecorded", mine + "i.applied <> " + count(tHistory), false},
		{"dead", "SELECT count(*) FROM " + tDead + " WHERE instance_id BETWEEN $1 AND $2", false},
		{"applied", "SELECT count(*) FROM " + tHistory + " WHERE instance_id BETWEEN $1 AND $2", false},
		{"attempts", "SELECT COALESCE(SUM(a.attempts), 0) FROM (SELECT instance_id, attempts FROM " + tHistory + " UNION ALL SELECT instance_id, attempts FROM " + tDead +
			" UNION ALL SELECT instance_id, attempts FROM " + tSignals + ") AS a WHERE a.instance_id BETWEEN $1 AND $2", false},
	}
	s.leasesHeld = "SELECT count(*) FROM " + tSignals + " WHERE instance_id BETWEEN $1 AND $2 AND lease_owner IS NOT NULL"
	return s
}
