package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	_ "github.com/txnbench/txnbench/internal/engine/engines" // the CLI opens (and starts) every kind of database
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
	_ "github.com/txnbench/txnbench/internal/workload/anomalies"       // registers list-append and rw-register
	_ "github.com/txnbench/txnbench/internal/workload/connectoverhead" // registers connect-overhead
	_ "github.com/txnbench/txnbench/internal/workload/pgbenchscript"   // registers script
	_ "github.com/txnbench/txnbench/internal/workload/tpcc"            // registers tpcc
	_ "github.com/txnbench/txnbench/internal/workload/trainevents"     // registers train-events
	_ "github.com/txnbench/txnbench/internal/workload/workflow"        // registers workflow
)

// Version is set at build time with -ldflags "-X .../cli.Version=v1.2.3".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// usageError marks an error as the user's input: exit status 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usage(err error) error { return usageError{err} }

// exitError carries a specific exit status with an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// app holds what every command shares.
type app struct {
	stdout, stderr io.Writer
	secrets        []string      // passwords given on the command line, masked where they stand in URLs
	args           []string      // the command line that results record: "txnbench" and Main's args
	exiting        chan struct{} // closed by a second interrupt: exitNow ends the process

	// dash is suite run's --dashboard, which its scenarios show on.
	dash *liveDashboard
	// process: the process is txnbench's own (Process, not Main), so a
	// command may change what is the process's (its GOMAXPROCS).
	process bool
}

// Main runs txnbench with args (without the program name) and returns the
// exit status. It leaves the process's settings alone: tests run it
// in-process, several at once.
func Main(args []string, stdout, stderr io.Writer) int {
	return (&app{stdout: stdout, stderr: stderr}).main(args)
}

// Process is Main as the txnbench binary runs it, in a process of its
// own: `txnbench pgbench` sets GOMAXPROCS from -j (see pgbenchProcs).
func Process(args []string, stdout, stderr io.Writer) int {
	return (&app{stdout: stdout, stderr: stderr, process: true}).main(args)
}

func (a *app) main(args []string) int {
	a.args, a.exiting = append([]string{"txnbench"}, args...), make(chan struct{})
	a.collectSecrets(args)
	if pw := os.Getenv("PGPASSWORD"); pw != "" {
		// libpq's password from the environment: masked like a URL's
		a.secrets = append(a.secrets, pw, url.QueryEscape(pw), url.PathEscape(pw))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// A closed stdout (| head) is a reader that has seen enough: writes fail
	// with EPIPE, which the output ignores, instead of SIGPIPE killing us.
	signal.Ignore(syscall.SIGPIPE)
	go func() {
		<-sigs
		a.status("interrupted: stopping clients, then printing and saving what was measured (interrupt again to exit at once)")
		cancel()
		<-sigs
		a.exitNow()
	}()

	root := a.rootCommand(args)
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := root.ExecuteContext(ctx)
	a.awaitExitNow()
	if err == nil {
		return exitcode.OK
	}
	err = dashboardArg(args, err)
	var ee exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			a.printErr(ee.msg)
		}
		return ee.code
	}
	a.printErr(err.Error())
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) || errors.Is(err, target.ErrMalformedURL) || errors.Is(err, workload.ErrIncompleteData) || errors.Is(err, workload.ErrNotOurs) || errors.Is(err, job.ErrRunIDUsed) || errors.Is(err, job.ErrOtherSettings) || errors.Is(err, job.ErrNoRun) || errors.Is(err, workload.ErrUnsupported) {
		return exitcode.Usage
	}
	return exitcode.Failure
}

// exitNow ends txnbench on a second interrupt: the servers and poolers it
// started are killed, not shut down, their directories (also those of
// one still being set up) removed, and nothing more is printed or saved.
func (a *app) exitNow() {
	close(a.exiting)
	if started := localdb.Running(); len(started) > 0 {
		a.status("interrupted again: stopping the servers txnbench started (" + strings.Join(started, ", ") + ") and exiting")
	} else {
		a.status("interrupted again: exiting")
	}
	if err := localdb.KillAll(); err != nil {
		a.printErr(err.Error())
	}
	os.Exit(exitcode.Interrupted)
}

// awaitExitNow blocks for good once a second interrupt began exitNow, so
// that it exits 130 after killing the servers: a run that failed because
// they died under it must not exit first with its own status and error.
func (a *app) awaitExitNow() {
	select {
	case <-a.exiting:
		select {}
	default:
	}
}

// isCobraUsage recognises cobra's own errors about the command line.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "invalid argument", "flag needs an argument", "accepts ", "requires at least", "bad flag syntax"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// rootCommand is txnbench's command line, for the arguments args.
func (a *app) rootCommand(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "txnbench",
		Short: "Realistic transactional workloads against SQLite, PostgreSQL, MariaDB and MySQL, with numbers you can trust",
		Long: `txnbench runs realistic multi-statement transactional workloads against a
database (embedded SQLite by default, a throwaway local PostgreSQL or
MariaDB with --db temp-postgres or temp-mariadb, any PostgreSQL-wire server
by postgres:// URL, or MariaDB or MySQL by mysql:// URL), measures per-op
latency with HDR histograms, checks that no data was lost, and writes
tables and JSON.

Exit status: 0 ok, 1 runtime failure, 2 usage error, 3 invariants violated,
4 regression found by diff, 130 interrupted (results still printed and saved).`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
	}
	root.SetVersionTemplate("txnbench {{.Version}}\n")
	root.PersistentFlags().String("config", "", configUsage)
	declareFlags(root.PersistentFlags(), kindControl, "config")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return a.applySettings(cmd) }
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	commands := []struct {
		name string
		make func() *cobra.Command
	}{
		{"run", func() *cobra.Command { return a.runCommand(false, args) }},
		{"init", func() *cobra.Command { return a.runCommand(true, args) }},
		{"study", a.studyCommand}, {"capacity", a.capacityCommand}, {"pgbench", a.pgbenchCommand},
		{"report", a.reportCommand}, {"diff", a.diffCommand}, {"history", a.historyCommand},
		{"version", func() *cobra.Command {
			return &cobra.Command{
				Use:   "version",
				Short: "Print txnbench's version",
				Args:  cobra.NoArgs,
				Run:   func(*cobra.Command, []string) { fmt.Fprintln(a.stdout, "txnbench", version()) },
			}
		}},
		{"suite", a.suiteCommand}, {"check", a.checkCommand},
	}
	// The command that runs is built alone when the first argument names
	// it: building every command with every workload's flags was 1.75 M
	// instructions and 0.6 MB of a pgbench -t 1's start-up (BENCHMARKS'
	// "Issue 40, round 5", e1). Anything else (help, a flag first, a typo)
	// gets them all, for its listing and suggestions.
	for _, c := range commands {
		if len(args) > 0 && args[0] == c.name {
			root.AddCommand(c.make())
			commands = nil
			break
		}
	}
	for _, c := range commands {
		root.AddCommand(c.make())
	}
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 && cmd.HasSubCommands() { // cobra's: "Unknown help topic", exit 0
				return usage(fmt.Errorf("no help topic %q: txnbench --help lists the commands", strings.Join(args, " ")))
			}
			return cmd.Help()
		},
	})
	return root
}

// oneArg is the Args of a command (use, as typed) that takes one
// argument: its usage error says what the argument is and where to find
// one (what), not cobra's "accepts 1 arg(s)".
func oneArg(use, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usage(fmt.Errorf("%s takes one argument, got %d: %s", use, len(args), what))
		}
		return nil
	}
}

// collectSecrets remembers every URL password given on the command line
// so that a message quoting that URL hides it even where the URL does not
// parse (redact).
func (a *app) collectSecrets(args []string) {
	for _, arg := range args {
		_, v, ok := strings.Cut(arg, "=")
		if !ok || !strings.Contains(v, "://") {
			v = arg
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" {
				a.secrets = append(a.secrets, p, url.QueryEscape(p), url.PathEscape(p))
			}
		} else if m := rawPasswordIn(v); m != nil && m[1] != "" {
			a.secrets = append(a.secrets, m[1]) // not a valid URL: spaces and all
		}
	}
}

// rawPassword finds the password of a URL that does not parse: everything
// between "://user:" and the last "@".
var rawPassword = regexp.MustCompile(`://[^:/@\s]*:(.*)@`)

// rawPasswordIn is rawPassword's submatches in v, nil when there are
// none; v without its "://" is not searched (a search allocates 32 KB).
func rawPasswordIn(v string) []string {
	if !strings.Contains(v, "://") {
		return nil
	}
	return rawPassword.FindStringSubmatch(v)
}

// redact masks the passwords in s: those of URLs and password= fields,
// and the command line's where they stand in a URL. It masks the password
// field only, never other text that happens to equal it (postgres:postgres
// keeps its user name readable).
func (a *app) redact(s string) string {
	for _, p := range a.secrets {
		s = target.MaskPassword(s, p)
	}
	return target.MaskURL(s)
}

// printErr prints an error as one line (a server log tail may follow on
// the next lines, indented).
func (a *app) printErr(msg string) {
	fmt.Fprintln(a.stderr, "txnbench: "+a.redact(msg))
}

// status prints a progress or status message.
func (a *app) status(msg string) {
	fmt.Fprintln(a.stderr, a.redact(msg))
}
