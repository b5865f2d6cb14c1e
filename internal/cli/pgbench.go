package cli

import (
	"os"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/pgbench/emulate"
)

func (a *app) pgbenchCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "pgbench [OPTION]... [DBNAME]",
		Short: "pgbench, option for option: the same scripts, random streams and report, plus percentiles, JSON and SQLite",
		Long: `txnbench pgbench takes pgbench's options and scripts and prints pgbench's
report, with latency percentiles added. DBNAME may also be a postgres:// URL,
sqlite:PATH or temp-postgres (a throwaway local PostgreSQL, initialised with
-s before the run). Run "txnbench pgbench --help" for the options.`,
		DisableFlagParsing: true, // -h is the host, as in pgbench
		RunE: func(cmd *cobra.Command, args []string) error {
			code := emulate.Main(cmd.Context(), args, emulate.Env{
				Stdout: a.stdout, Stderr: a.stderr, Args: a.args, Version: version(),
				Redact: a.redact, CheckOutFile: checkOutFile, Threads: a.pgbenchThreads,
			})
			if code != exitcode.OK {
				return exitError{code: code} // emulate printed why
			}
			return nil
		},
	}
}

// pgbenchThreads runs the txnbench binary's pgbench on as many Ps as
// pgbench runs threads (-j): one by default, where Go takes every core
// and wakes (and spins) threads on each (issue 40: the start-up's CPU).
// In-process (Main) it does nothing.
func (a *app) pgbenchThreads(threads int) {
	if n := pgbenchProcs(a.process, threads, runtime.GOMAXPROCS(0), os.Getenv); n > 0 {
		runtime.GOMAXPROCS(n)
	}
}

// pgbenchProcs is the GOMAXPROCS to set for pgbench's threads, never
// more than Go's own choice procs (more Ps than cores gain nothing), or 0
// to leave it: in a process not txnbench's own, or when the environment
// sets GOMAXPROCS (the user's choice stands).
func pgbenchProcs(process bool, threads, procs int, getenv func(string) string) int {
	if !process || getenv("GOMAXPROCS") != "" || threads >= procs {
		return 0
	}
	return threads
}
