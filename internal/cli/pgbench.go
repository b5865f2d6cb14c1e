package cli

import (
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
				Redact: a.redact, CheckOutFile: checkOutFile,
			})
			if code != exitcode.OK {
				return exitError{code: code} // emulate printed why
			}
			return nil
		},
	}
}
