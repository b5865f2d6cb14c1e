package inputs

// lateRefusals are the bad inputs issue 37's adversarial pass found not
// clean: an error naming a flag the user did not give (tpcc's --clients,
// derived from --warehouses), a flag accepted and ignored (--no-init with
// builtin scripts, --partition-method without --partitions), a -D size
// refused with exit 1 after the run's header, sizes so large the load
// never ends, cobra's "accepts 1 arg(s)" and "unknown command" where the
// user gave a file. TestBadInputIsRefused runs them; each failed it
// before.
func lateRefusals() []badInput {
	s := map[string]string{"s.toml": goodSuite}
	script := func(args ...string) []string { return append([]string{"run", "script"}, args...) }
	return []badInput{
		// tpcc: the flag given, with its range, not the --clients it makes
		{args: []string{"run", "tpcc", "--warehouses", "0"}, want: "--warehouses 0: give 1 to 100000"},
		{args: []string{"run", "tpcc", "--warehouses", "-1"}, want: "--warehouses -1: give 1 to 100000"},
		{args: []string{"run", "tpcc", "--warehouses", "1000000000"}, want: "--warehouses 1000000000: give 1 to 100000"},
		{args: []string{"run", "tpcc", "--warehouses", "922337203685477581"}, want: "--warehouses 922337203685477581: give 1 to 100000"},
		{args: []string{"run", "tpcc", "--active-warehouses", "1000000000"}, want: "--active-warehouses 1000000000: give 0 (all loaded) to 100000"},
		{args: []string{"init", "tpcc", "--db", "sqlite:{dir}/t.db", "--warehouses", "1000000000"}, want: "--warehouses 1000000000: give 1 to 100000"},
		// --no-init with builtin scripts: the data already there, or none
		{args: script("-b", "ycsb-a", "--no-init"), want: "--no-init uses the data already in the database, and the temporary SQLite file of a run without --db starts empty: give --db where the data is, or leave --no-init out"},
		{args: script("-b", "tpcb-like", "--no-init", "--db", "temp-postgres"), want: "--no-init uses the data already in the database, and --db temp-postgres starts empty"},
		{args: script("-b", "oltp-read-only", "--no-init", "--db", "temp-mariadb"), want: "and --db temp-mariadb starts empty"},
		{args: script("-b", "ycsb-a", "--no-init", "--reinit", "--db", "sqlite:{dir}/x.db"), want: "--no-init with --reinit: one uses the data already there, the other loads it anew; choose one"},
		{args: []string{"init", "script", "-b", "ycsb-a", "--no-init", "--db", "sqlite:{dir}/x.db"}, want: "init loads the data and --no-init says to load none: leave --no-init out"},
		// the builtins' sizes, from -D or their flags: refused before the header
		{args: script("-b", "oltp-read-write", "-D", "tables=-1"), want: "-D tables=-1: give a whole number from 1 to 10000"},
		{args: script("-b", "oltp-read-write", "-D", "tables=0"), want: "-D tables=0: give a whole number from 1 to 10000"},
		{args: script("-b", "oltp-read-write", "-D", "tables=1000000000"), want: "-D tables=1000000000: give a whole number from 1 to 10000"},
		{args: script("-b", "oltp-read-write", "-D", "table_size=99999999999999999999"), want: "-D table_size=99999999999999999999: give a whole number from 1 to 1099511627775"},
		{args: script("-b", "ycsb-a", "-D", "record_count=abc"), want: "-D record_count=abc: give a whole number from 1 to 1099511627775"},
		{args: script("-b", "ycsb-a", "-D", "record_count=1000000000000000"), want: "-D record_count=1000000000000000: give a whole number"},
		{args: script("-b", "ycsb-a", "--record-count", "1000000000000000"), want: "--record-count 1000000000000000: give a whole number from 1 to 1099511627775"},
		{args: script("-b", "oltp-read-write", "--tables", "1000000000"), want: "--tables 1000000000: give a whole number from 1 to 10000"},
		{args: script("-b", "oltp-read-write", "--table-size", "1000000000000000"), want: "--table-size 1000000000000000: give a whole number"},
		{args: script("-b", "tpcb-like", "--partition-method", "hash"), want: "--partition-method without --partitions: add --partitions N, or leave --partition-method out"},
		{args: script("-b", "tpcb-like", "--partitions", "2"), want: "--partitions: SQLite has no table partitioning: leave the option out for SQLite, or initialise a PostgreSQL database"},
		{args: script("-b", "tpcb-like", "--foreign-keys", "--db", "sqlite:{dir}/x.db"), want: "--foreign-keys (step f): SQLite cannot add foreign keys to existing tables"},
		{args: []string{"study", "script", "-b", "oltp-read-write", "--vary", "tables=1,1000000000"}, want: "--tables 1000000000: give a whole number from 1 to 10000"},
		// spans whose sum (the run's deadline) would overflow, a ramp past the run
		{args: []string{"run", "train-events", "--duration", "2562047h"}, want: "--duration 2562047h0m0s: give at most 8760h0m0s (a year)"},
		{args: []string{"run", "train-events", "--duration", "2562047h", "--warmup", "2562047h"}, want: "give at most 8760h0m0s (a year)"},
		{args: []string{"run", "train-events", "--grace", "99999h"}, want: "--grace 99999h0m0s: give at most 8760h0m0s"},
		{args: []string{"run", "train-events", "--ramp", "1h", "--duration", "1s"}, want: "--ramp 1h0m0s is longer than the run (--warmup 0s + --duration 1s): the last clients would start after it ends; give at most 1s"},
		// what would fail only once a server is started
		{args: []string{"run", "train-events", "--db", "temp-postgres", "--pg-bin", "{dir}"}, want: "--pg-bin {dir}: no executable initdb in {dir}"},
		{args: []string{"run", "train-events", "--db", "temp-postgres", "--via", "pgbouncer", "--pgbouncer-bin", "{dir}/nosuch"}, want: "--pgbouncer-bin {dir}/nosuch: no executable pgbouncer"},
		{args: []string{"run", "train-events", "--db", "temp-postgres", "--via", "pgbouncer", "--pgbouncer-pool-size", "100000000"}, want: "--pgbouncer-pool-size 100000000: give 1 to 10000"},
		{args: []string{"run", "workflow", "--signal-workers", "100000000"}, want: "--signal-workers 100000000: give 1 to 10000 (each is a connection of its own)"},
		{args: []string{"run", "train-events", "--db", "sqlite:{dir}/nosuch/x.db"}, want: "--db sqlite:{dir}/nosuch/x.db: directory {dir}/nosuch does not exist: create it"},
		{args: []string{"init", "train-events", "--db", "sqlite:{dir}/nosuch/x.db"}, want: "directory {dir}/nosuch does not exist"},
		// init on a throwaway server, MariaDB's as PostgreSQL's
		{args: []string{"init", "train-events", "--db", "temp-postgres"}, want: "init on temp-postgres would be thrown away at exit"},
		{args: []string{"init", "train-events", "--db", "temp-mariadb"}, want: "init on temp-mariadb would be thrown away at exit: give --db sqlite:PATH, a postgres:// or a mysql:// URL, or just use run"},
		// MariaDB's flags and URLs, as PostgreSQL's
		{args: []string{"run", "train-events", "--db", "temp-mariadb", "--mariadb-conf", "bogus"}, want: `--mariadb-conf "bogus": want name=value`},
		{args: []string{"run", "train-events", "--mariadb-conf", "innodb_buffer_pool_size=1G"}, want: "--mariadb-conf only applies to --db temp-mariadb"},
		{args: []string{"run", "train-events", "--db", "temp-mariadb", "--pg-conf", "work_mem=1MB"}, want: "--pg-conf only applies to --db temp-postgres"},
		{args: []string{"run", "train-events", "--db", "mysql://u:hunter22@127.0.0.1:notaport/db"}, want: "malformed database URL"},
		// a port that is none, in every URL-taking flag: refused before anything starts, as a non-number was
		{args: []string{"run", "train-events", "--db", "mysql://u:hunter22@127.0.0.1:70000/db"}, want: `port "70000" is none: give one from 1 to 65535 (or none for the default, 3306)`},
		{args: []string{"run", "train-events", "--db", "mysql://u:hunter22@127.0.0.1:0/db"}, want: `port "0" is none`},
		{args: []string{"run", "train-events", "--db", "postgres://u:hunter22@127.0.0.1:70000/db"}, want: `port "70000" is none: give one from 1 to 65535 (or none for the default, 5432)`},
		{args: []string{"run", "train-events", "--db", "postgres://u:hunter22@127.0.0.1:0/db"}, want: `port "0" is none`},
		{args: []string{"run", "train-events", "--db", "postgres://u:hunter22@127.0.0.1:x5432/db"}, want: "malformed database URL"},
		{args: []string{"run", "train-events", "--db", "postgres://u:hunter22@h1:nope,h2:5432/db"}, want: `port "nope" is none`},
		{args: []string{"run", "train-events", "--db", "temp-postgres", "--via", "postgres://u:hunter22@127.0.0.1:70000/db"}, want: `--via: malformed database URL postgres://u:xxxxx@127.0.0.1:70000/db: port "70000" is none`},
		{args: []string{"capacity", "train-events", "--db", "mysql://u:hunter22@127.0.0.1:70000/db", "--by", "clients", "--slo", "cycle.p99<=1s"}, want: `port "70000" is none`},
		{args: []string{"study", "train-events", "--db", "mysql://u:hunter22@127.0.0.1:70000/db", "--vary", "clients=1,2"}, want: `port "70000" is none`},
		{args: []string{"check", "x", "--db", "postgres://u:hunter22@127.0.0.1:70000/db"}, want: `--db: malformed database URL postgres://u:xxxxx@127.0.0.1:70000/db: port "70000" is none`},
		{args: []string{"run", "train-events", "--db", "temp-mariadb", "--duration", "10s", "--fault", "8s:kill-server:5s"}, want: "ends at 13s, after the 10s window"},
		{args: []string{"run", "tpcc", "--db", "temp-mariadb", "--warehouses", "0"}, want: "--warehouses 0: give 1 to 100000"},
		{args: []string{"check", "x", "--db", "mysql://u:hunter22@127.0.0.1:1/db"}, want: "--db: give the postgres:// URL of the database the shards ran against"},
		// a goal on an op the workload has not: refused before the first step, naming its ops
		{args: []string{"capacity", "train-events", "--by", "clients", "--slo", "nosuch.p99<=1ms"}, want: `--slo "nosuch.p99<=1ms": train-events has no op "nosuch": give one of add, process, archive, cycle, connect`},
		{args: []string{"capacity", "train-events", "--by", "clients", "--slo", "pool_wait.p99<=1ms"}, want: `train-events has no op "pool_wait"`},
		{args: []string{"capacity", "train-events", "--by", "rate", "--slo", "cycle.p99<=1s", "--slo", "nosuch.rate>=1"}, want: `give one of add, process, archive, cycle, connect, lag`},
		{args: []string{"capacity", "script", "-b", "tpcb-like", "--by", "clients", "--slo", "nosuch/1.p99<=1s"}, want: `script has no op "nosuch/1": give one of tpcb-like, cycle, connect`},
		// a study's cells twice
		{args: []string{"study", "train-events", "--vary", "clients=1,1"}, want: `--vary "clients=1,1": 1 is given twice`},
		// commands' arguments: what the argument is, and where to find one
		{args: []string{"suite", "{dir}/s.toml", "--tier", "t"}, want: `"{dir}/s.toml" is not a suite command: run a suite file with txnbench suite run {dir}/s.toml --tier TIER`, files: s},
		{args: []string{"suite", "--tier", "t"}, want: "unknown flag: --tier (suite takes a command: txnbench suite run FILE --tier TIER, or suite list FILE)"},
		{args: []string{"suite", "list"}, want: "suite list takes one argument, got 0: FILE, the suite file"},
		{args: []string{"check"}, want: "check takes one argument, got 0: tpcc, or RUN_ID, the id of a split run, which each of its shards prints as it starts"},
		{args: []string{"check", "a", "b"}, want: "check takes one argument, got 2: tpcc, or RUN_ID"},
		{args: []string{"help", "nosuch"}, want: `no help topic "nosuch": txnbench --help lists the commands`},
		{args: []string{"help", "run", "nosuch"}, want: `no help topic "run nosuch"`},
	}
}
