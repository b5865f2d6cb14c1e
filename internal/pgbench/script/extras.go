package script

import (
	"fmt"
	"slices"
	"strings"
)

// Family names the tables a builtin script runs on: pgbench's, YCSB's
// usertable or sysbench's sbtest tables.
type Family string

// The builtins' families.
const (
	FamilyPgbench  Family = "pgbench"
	FamilyYCSB     Family = "ycsb"
	FamilySysbench Family = "sysbench"
)

// extra is one of txnbench's own builtins: YCSB's core workloads and
// sysbench's OLTP scripts, in pgbench's language. Their sizes and their
// inserts' keys come from variables the workload defines (ExtraVars).
type extra struct {
	builtin
	family Family
}

// ExtraVars are the variables txnbench's own builtins read, beyond
// pgbench's: the data's size (record_count for YCSB; tables and
// table_size for sysbench), insert_base (the first key no row has),
// clients (the run's clients), seq (each client's count of inserts, 0 at
// the start) and inserted (1 after a transaction that inserted a row).
// A new row's key is insert_base + client_id + clients * (seq - 1), so no
// two clients ever insert the same key.
var ExtraVars = []string{"record_count", "tables", "table_size", "insert_base", "clients", "seq", "inserted"}

// FamilyOf is the family of the builtin script name (whole names only for
// txnbench's own), or "" when name is no builtin.
func FamilyOf(name string) Family {
	for _, e := range extras {
		if e.name == name {
			return e.family
		}
	}
	if b, err := findBuiltin(name); err == nil && b != nil {
		return FamilyPgbench
	}
	return ""
}

// ExtraNames are txnbench's own builtin scripts' names.
func ExtraNames() []string {
	names := make([]string, len(extras))
	for i, e := range extras {
		names[i] = e.name
	}
	return names
}

// ListExtras lists txnbench's own builtin scripts as ListBuiltins lists
// pgbench's.
func ListExtras() string {
	var b strings.Builder
	b.WriteString("txnbench's own builtin scripts (whole names only):\n")
	for _, s := range extras {
		fmt.Fprintf(&b, "  %17s: %s\n", s.name, s.desc)
	}
	return b.String()
}

// ycsbChars is where a YCSB field's 100 bytes are cut from, at a random
// offset: every value is a 100-character string, as YCSB's are.
var ycsbChars = strings.Repeat("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 4)[:200]

// sbChars is where sysbench's c (119 characters) and pad (59) values
// are cut from: groups of 11 digits joined by '-', as sysbench makes them.
var sbChars = strings.Repeat("83868641912-28733846197-", 10)[:240]

const (
	// ycsbKey is YCSB's request distribution: zipfian (pgbench requires
	// a parameter of at least 1.001; YCSB's constant is 0.99), scrambled
	// over the loaded keys so the hot keys are spread out, as YCSB's
	// scrambled zipfian does.
	ycsbKey  = "\\set key permute(random_zipfian(0, :record_count - 1, 1.01), :record_count) + 1\n"
	ycsbOff  = "\\set off random(1, 101)\n"
	ycsbRead = "SELECT * FROM usertable WHERE ycsb_key = :key;\n"
	ycsbUpd  = "UPDATE usertable SET field0 = substr('" + "%[1]s" + "', :off, 100) WHERE ycsb_key = :key;\n"
	// ycsbNew is an insert's key, unique across clients and runs.
	ycsbNew = "\\set seq :seq + 1\n" +
		"\\set key :insert_base + :client_id + :clients * (:seq - 1)\n" +
		"\\set inserted 1\n"
	// ycsbLatest is YCSB's latest distribution: zipfian over the rows
	// by age, the newest most likely, counting the loaded rows and then
	// this run's inserts (as this client knows them).
	ycsbLatest = "\\set rows :record_count + :clients * :seq\n" +
		"\\set pos :rows + 1 - random_zipfian(1, :rows, 1.01)\n" +
		"\\if :pos <= :record_count\n\\set key :pos\n" +
		"\\else\n\\set key :insert_base + :pos - :record_count - 1\n\\endif\n"
	// sbTable is one sysbench transaction's table; sbID, sbRange and
	// sbOff its statements' random ids, ranges and values.
	sbTable = "\\set table_id random(1, :tables)\n"
	sbID    = "\\set id random(1, :table_size)\n"
	sbRange = "\\set lo random(1, greatest(1, :table_size - 99))\n"
	sbOff   = "\\set off random(1, 121)\n\\set poff random(1, 181)\n\\set kv random(1, :table_size)\n"
)

func ycsbUpdate() string { return fmt.Sprintf(ycsbUpd, ycsbChars) }

// ycsbInsert inserts a new row, its ten fields one 100-character value.
func ycsbInsert() string {
	var cols []string
	for i := 0; i < 10; i++ {
		cols = append(cols, fmt.Sprintf("field%d", i))
	}
	return ycsbNew + fmt.Sprintf("INSERT INTO usertable (ycsb_key, %s) SELECT :key, %s FROM (SELECT substr('%s', :off, 100) AS v) AS f;\n",
		strings.Join(cols, ", "), strings.TrimSuffix(strings.Repeat("v, ", 10), ", "), ycsbChars)
}

// YCSBValue is the field0 ycsb-update writes with :off at off.
func YCSBValue(off int) string {
	if off < 1 || off > len(ycsbChars)-99 {
		return ""
	}
	return ycsbChars[off-1 : off+99]
}

// readOnly are the builtins that write nothing (ReadOnly).
var readOnly = []string{"select-only", "ycsb-c", "ycsb-read", "oltp-read-only", "oltp-point-select"}

// ReadOnly reports whether the builtin script name writes nothing, so a
// standby can run it.
func ReadOnly(name string) bool { return slices.Contains(readOnly, name) }

// ycsbMix is a YCSB workload of two operations: first with readPct
// percent of the transactions, second with the rest.
func ycsbMix(readPct int, first, second string) string {
	return ycsbOff + "\\set r random(1, 100)\n" +
		fmt.Sprintf("\\if :r <= %d\n", readPct) + first + "\\else\n" + second + "\\endif\n"
}

func sbPoint() string { return sbID + "SELECT c FROM sbtest:table_id WHERE id = :id;\n" }

func sbRanges() string {
	q := func(sel, tail string) string {
		return sbRange + "SELECT " + sel + " FROM sbtest:table_id WHERE id BETWEEN :lo AND :lo + 99" + tail + ";\n"
	}
	return q("c", "") + q("sum(k)", "") + q("c", " ORDER BY c") + q("DISTINCT c", " ORDER BY c")
}

func sbC(off string, n int) string { return fmt.Sprintf("substr('%s', :%s, %d)", sbChars, off, n) }

func sbWrites() string {
	return sbID + "UPDATE sbtest:table_id SET k = k + 1 WHERE id = :id;\n" +
		sbID + "UPDATE sbtest:table_id SET c = " + sbC("off", 119) + " WHERE id = :id;\n" +
		sbID + "DELETE FROM sbtest:table_id WHERE id = :id;\n" +
		"INSERT INTO sbtest:table_id (id, k, c, pad) VALUES (:id, :kv, " + sbC("off", 119) + ", " + sbC("poff", 59) + ");\n"
}

func sbPoints() string { return strings.Repeat(sbPoint(), 10) }

// extras start each transaction with inserted at 0 (ExtraVars).
var extras = func(list []extra) []extra {
	for i := range list {
		list[i].text = "\\set inserted 0\n" + list[i].text
	}
	return list
}([]extra{
	{builtin{"ycsb-a", "<builtin: YCSB workload A (50% read, 50% update)>",
		ycsbKey + ycsbMix(50, ycsbRead, ycsbUpdate())}, FamilyYCSB},
	{builtin{"ycsb-b", "<builtin: YCSB workload B (95% read, 5% update)>",
		ycsbKey + ycsbMix(95, ycsbRead, ycsbUpdate())}, FamilyYCSB},
	{builtin{"ycsb-c", "<builtin: YCSB workload C (read only)>",
		ycsbKey + ycsbRead}, FamilyYCSB},
	{builtin{"ycsb-d", "<builtin: YCSB workload D (95% read latest, 5% insert)>",
		ycsbMix(95, ycsbLatest+ycsbRead, ycsbInsert())}, FamilyYCSB},
	{builtin{"ycsb-e", "<builtin: YCSB workload E (95% scan, 5% insert)>",
		ycsbMix(95, ycsbKey+"\\set len random(1, 100)\n"+
			"SELECT * FROM usertable WHERE ycsb_key >= :key ORDER BY ycsb_key LIMIT :len;\n", ycsbInsert())}, FamilyYCSB},
	{builtin{"ycsb-f", "<builtin: YCSB workload F (50% read, 50% read-modify-write)>",
		ycsbKey + ycsbMix(50, ycsbRead, "BEGIN;\n"+ycsbRead+ycsbUpdate()+"END;\n")}, FamilyYCSB},
	// YCSB-B's two operations as scripts of their own, so the read can
	// be routed to a standby (--read-from) and the update to the primary:
	// -b ycsb-read@95 -b ycsb-update@5. The read keeps what it read
	// (read_field0 among the read_ variables), for the stale-read count.
	{builtin{"ycsb-read", "<builtin: YCSB read (one record)>",
		ycsbKey + "SELECT * FROM usertable WHERE ycsb_key = :key \\gset read_\n"}, FamilyYCSB},
	{builtin{"ycsb-update", "<builtin: YCSB update (field0 of one record)>",
		ycsbKey + ycsbOff + ycsbUpdate()}, FamilyYCSB},
	{builtin{"oltp-read-write", "<builtin: sysbench oltp_read_write>",
		sbTable + sbOff + "BEGIN;\n" + sbPoints() + sbRanges() + sbWrites() + "COMMIT;\n"}, FamilySysbench},
	{builtin{"oltp-read-only", "<builtin: sysbench oltp_read_only>",
		sbTable + "BEGIN;\n" + sbPoints() + sbRanges() + "COMMIT;\n"}, FamilySysbench},
	{builtin{"oltp-write-only", "<builtin: sysbench oltp_write_only>",
		sbTable + sbOff + "BEGIN;\n" + sbWrites() + "COMMIT;\n"}, FamilySysbench},
	{builtin{"oltp-point-select", "<builtin: sysbench oltp_point_select>",
		sbTable + sbPoint()}, FamilySysbench},
	{builtin{"oltp-update-index", "<builtin: sysbench oltp_update_index>",
		sbTable + sbID + "UPDATE sbtest:table_id SET k = k + 1 WHERE id = :id;\n"}, FamilySysbench},
	{builtin{"oltp-insert", "<builtin: sysbench oltp_insert>",
		sbTable + sbOff + "\\set seq :seq + 1\n" +
			"\\set id :insert_base + :client_id + :clients * (:seq - 1)\n\\set inserted 1\n" +
			"INSERT INTO sbtest:table_id (id, k, c, pad) VALUES (:id, :kv, " + sbC("off", 119) + ", " + sbC("poff", 59) + ");\n"}, FamilySysbench},
})
