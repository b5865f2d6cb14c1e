package emulate

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// pgbenchHelp is pgbench 15's --help, section for section and option for
// option; 17's adds exitOnAbortHelp after --aggregate-interval.
const pgbenchHelp = `PROG is a benchmarking tool for PostgreSQL.

Usage:
  PROG [OPTION]... [DBNAME]

Initialization options:
  -i, --initialize         invokes initialization mode
  -I, --init-steps=[dtgGvpf]+ (default "dtgvp")
                           run selected initialization steps
  -F, --fillfactor=NUM     set fill factor
  -n, --no-vacuum          do not run VACUUM during initialization
  -q, --quiet              quiet logging (one message each 5 seconds)
  -s, --scale=NUM          scaling factor
  --foreign-keys           create foreign key constraints between tables
  --index-tablespace=TABLESPACE
                           create indexes in the specified tablespace
  --partition-method=(range|hash)
                           partition pgbench_accounts with this method (default: range)
  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)
  --tablespace=TABLESPACE  create tables in the specified tablespace
  --unlogged-tables        create tables as unlogged tables

Options to select what to run:
  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)
                           (use "-b list" to list available scripts)
  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)
  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches
                           (same as "-b simple-update")
  -S, --select-only        perform SELECT-only transactions
                           (same as "-b select-only")

Benchmarking options:
  -c, --client=NUM         number of concurrent database clients (default: 1)
  -C, --connect            establish new connection for each transaction
  -D, --define=VARNAME=VALUE
                           define variable for use by custom script
  -j, --jobs=NUM           number of threads (default: 1)
  -l, --log                write transaction times to log file
  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late
  -M, --protocol=simple|extended|prepared
                           protocol for submitting queries (default: simple)
  -n, --no-vacuum          do not run VACUUM before tests
  -P, --progress=NUM       show thread progress report every NUM seconds
  -r, --report-per-command report latencies, failures, and retries per command
  -R, --rate=NUM           target rate in transactions per second
  -s, --scale=NUM          report this scale factor in output
  -t, --transactions=NUM   number of transactions each client runs (default: 10)
  -T, --time=NUM           duration of benchmark test in seconds
  -v, --vacuum-all         vacuum all four standard tables before tests
  --aggregate-interval=NUM aggregate data over NUM seconds
  --failures-detailed      report the failures grouped by basic types
  --log-prefix=PREFIX      prefix for transaction time log file
                           (default: "pgbench_log")
  --max-tries=NUM          max number of tries to run transaction (default: 1)
  --progress-timestamp     use Unix epoch timestamps for progress
  --random-seed=SEED       set random seed ("time", "rand", integer)
  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%)
  --show-script=NAME       show builtin script code, then exit
  --verbose-errors         print messages of all errors

Common options:
  -d, --debug              print debugging output
  -h, --host=HOSTNAME      database server host or socket directory
  -p, --port=PORT          database server port number
  -U, --username=USERNAME  connect as specified database user
  -V, --version            output version information, then exit
  -?, --help               show this help, then exit
`

// exitOnAbortHelp is the line pgbench 17's --help adds.
const exitOnAbortHelp = "  --exit-on-abort          exit when any client is aborted\n"

// txnbenchOptions are the options txnbench pgbench adds to pgbench's.
var txnbenchOptions = []string{"db", "via", "isolation", "json", "pg-bin", "pg-conf", "no-init", "pgbench-output", "pgbench-version", "telemetry"}

// printPgbenchHelp prints the help of pgbench release r, then txnbench's
// options in a section of their own, where pgbench names where to report
// bugs.
func printPgbenchHelp(w io.Writer, fs *pflag.FlagSet, r release) {
	help := pgbenchHelp
	if r.has17() {
		agg := "  --aggregate-interval=NUM aggregate data over NUM seconds\n"
		help = strings.Replace(help, agg, agg+exitOnAbortHelp, 1)
	}
	fmt.Fprint(w, strings.ReplaceAll(help, "PROG", "txnbench pgbench"))
	own := pflag.NewFlagSet("txnbench", pflag.ContinueOnError)
	for _, name := range txnbenchOptions {
		f := *fs.Lookup(name)
		f.Usage = strings.TrimPrefix(f.Usage, "txnbench: ")
		own.AddFlag(&f)
	}
	own.SortFlags = false
	fmt.Fprintf(w, "\ntxnbench options:\n%s\nReport bugs to <https://github.com/txnbench/txnbench/issues>.\n", own.FlagUsages())
}
