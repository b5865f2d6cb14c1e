package inputs

// anomalyInputs are the history-checking workloads' bad values and
// check --history's: each refused in one line, exit 2, before any work.
func anomalyInputs() []badInput {
	notHistory := map[string]string{"h": "txnbench history 9\nnot one"}
	return []badInput{
		{args: []string{"run", "list-append", "--keys", "0"}, want: "--keys 0: give 1 to 1048576 keys"},
		{args: []string{"run", "rw-register", "--txn-len", "0"}, want: "--txn-len 0: give 1 to 1000 micro-ops per transaction"},
		{args: []string{"run", "list-append", "--reads", "1.5"}, want: "--reads 1.5: give a share from 0 to 1"},
		{args: []string{"run", "list-append", "--isolation", "bogus"}, want: `unknown --isolation "bogus"`},
		{args: []string{"run", "rw-register", "--isolation", "repeatable-read"}, want: "--isolation repeatable-read: SQLite runs every transaction SERIALIZABLE"},
		{args: []string{"run", "list-append", "--db", "temp-postgres", "--isolation", "read-uncommitted"}, want: "--isolation read-uncommitted: PostgreSQL has no such level of its own"},
		{args: []string{"run", "list-append", "--history", "{dir}/none/h"}, want: "--history {dir}/none/h: its directory {dir}/none does not exist"},
		{args: []string{"run", "list-append", "--history", "{dir}/h", "--history-edn", "{dir}/h"}, want: "--history and --history-edn both name {dir}/h"},
		{args: []string{"run", "list-append", "--history", ""}, want: "--history is empty: give a file to save the history to, or leave --history out"},
		{args: []string{"run", "rw-register", "--history-edn", ""}, want: "--history-edn is empty: give a file to save the history to, or leave --history-edn out"},
		{args: []string{"check", "--history", ""}, want: "--history is empty: give the history file to check"},
		// a history saved over the run's result, or over the SQLite database it ran on
		{args: []string{"run", "list-append", "--history", "{dir}/r.json", "--json", "{dir}/r.json"}, want: "--json {dir}/r.json and --history {dir}/r.json name the same file"},
		{args: []string{"run", "list-append", "--db", "sqlite:{dir}/db", "--history-edn", "{dir}/db"}, files: map[string]string{"db": ""}, want: "--history-edn {dir}/db would replace {dir}/db, which this command reads"},
		{args: []string{"run", "rw-register", "--db", "sqlite:{dir}/db", "--json", "{dir}/db-wal"}, files: map[string]string{"db": "", "db-wal": ""}, want: "--json {dir}/db-wal would replace {dir}/db-wal, which this command reads"},
		{args: []string{"run", "list-append", "--db", "postgres://u@127.0.0.1:1/db", "--shard", "0/2", "--seed", "1"}, want: "list-append checks the history of every client of the run in one process: a split run (--shard) would check each shard's part alone"},
		{args: []string{"check", "--history", "{dir}/h"}, files: notHistory, want: "{dir}/h is not a txnbench history"},
		{args: []string{"check", "--history", "{dir}/none"}, want: "{dir}/none"},
		{args: []string{"check", "--history", "{dir}/h", "--isolation", "bogus"}, files: notHistory, want: `unknown isolation level "bogus"`},
		{args: []string{"check", "--history", "{dir}/h", "--engine", "oracle"}, files: notHistory, want: `engine "oracle": give postgresql, mariadb, mysql or sqlite`},
		{args: []string{"check", "run-1", "--history", "{dir}/h"}, files: notHistory, want: "check --history FILE takes no RUN_ID"},
		{args: []string{"check", "run-1", "--isolation", "serializable"}, want: "--isolation is for check --history FILE"},
	}
}
