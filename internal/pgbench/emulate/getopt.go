package emulate

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	pgscript "github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/pgbench/setup"
)

// pgbenchLongOptions are pgbench 17's long options in the order of its
// long_options table: getopt_long accepts any unambiguous prefix of them
// and lists them in this order when a prefix is ambiguous. 15's are the
// same without the last, exit-on-abort (longOption skips options the
// release does not register).
var pgbenchLongOptions = []string{
	"builtin", "client", "connect", "debug", "define", "file", "fillfactor", "host", "initialize",
	"init-steps", "jobs", "log", "latency-limit", "no-vacuum", "port", "progress", "protocol", "quiet",
	"report-per-command", "rate", "scale", "select-only", "skip-some-updates", "time", "transactions",
	"username", "vacuum-all", "unlogged-tables", "tablespace", "index-tablespace", "sampling-rate",
	"aggregate-interval", "progress-timestamp", "log-prefix", "foreign-keys", "random-seed",
	"show-script", "partitions", "partition-method", "failures-detailed", "max-tries", "verbose-errors",
	"exit-on-abort",
}

// Getopt reads args as pgbench's getopt_long reads its command line: the
// options, each by its full name with its argument after "=", the
// operands, and getopt's complaint if it has one (see getoptLong).
func Getopt(args []string) (opts, operands []string, err error) {
	return getoptLong(newPgbenchOpts(pgbench17).fs, args)
}

// getoptLong reads args as glibc's getopt_long reads pgbench's command
// line and returns the options in a form pflag parses the same way (each
// by its full name, with its argument after "="), then the operands. Prefixes of pgbench's long options are expanded (txnbench's
// own are taken only in full), "-c=1" gives -c the argument "=1", and
// getopt's complaints come in its words. At a complaint, the options
// before it are still returned, so that pgbench's checks of those come
// first, as pgbench makes them while reading.
func getoptLong(fs *pflag.FlagSet, args []string) (opts, operands []string, err error) {
	takesArg := func(f *pflag.Flag) bool { return f.NoOptDefVal == "" }
	done := func(err error) ([]string, []string, error) { return opts, operands, err }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			return done(nil)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			f, err := longOption(fs, name, a)
			if err != nil {
				return done(err)
			}
			switch {
			case !takesArg(f) && hasVal:
				return done(getoptMsg("option '--%s' doesn't allow an argument", f.Name))
			case !takesArg(f):
				opts = append(opts, "--"+f.Name)
			case hasVal:
				opts = append(opts, "--"+f.Name+"="+val)
			case i+1 < len(args):
				i++
				opts = append(opts, "--"+f.Name+"="+args[i])
			default:
				return done(getoptMsg("option '--%s' requires an argument", f.Name))
			}
		case strings.HasPrefix(a, "-") && a != "-":
		cluster:
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				if f == nil || a[j] == '?' {
					return done(getoptMsg("invalid option -- '%c'", a[j]))
				}
				if !takesArg(f) {
					opts = append(opts, "--"+f.Name)
					continue
				}
				switch {
				case j+1 < len(a):
					opts = append(opts, "--"+f.Name+"="+a[j+1:])
				case i+1 < len(args):
					i++
					opts = append(opts, "--"+f.Name+"="+args[i])
				default:
					return done(getoptMsg("option requires an argument -- '%c'", a[j]))
				}
				break cluster // the rest of the word was the argument
			}
		default:
			operands = append(operands, a)
		}
	}
	return done(nil)
}

// longOption finds the option a long name names: itself, or the one
// pgbench option it is a prefix of.
func longOption(fs *pflag.FlagSet, name, arg string) (*pflag.Flag, error) {
	if f := fs.Lookup(name); f != nil && name != "" {
		return f, nil
	}
	var found []string
	for _, o := range pgbenchLongOptions {
		if strings.HasPrefix(o, name) && fs.Lookup(o) != nil {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return nil, getoptMsg("unrecognized option '%s'", arg)
	case 1:
		return fs.Lookup(found[0]), nil
	}
	return nil, getoptMsg("option '%s' is ambiguous; possibilities: '--%s'", arg, strings.Join(found, "' '--"))
}

// getoptMsg is one of getopt's complaints, as pgbench prints it.
func getoptMsg(format string, args ...any) error {
	return &pgbenchError{msg: fmt.Sprintf(format, args...), code: pgbenchBad, hint: true, bare: true}
}

// readOption checks an option just read (by its full name, as getoptLong
// returns it) as pgbench checks it while reading its options, before
// those that follow.
func (o *pgbenchOpts) readOption(opt string) error {
	name, _, _ := strings.Cut(strings.TrimPrefix(opt, "--"), "=")
	w := o.w
	switch name {
	case "protocol":
		if w.Mode != "simple" && w.Mode != "extended" && w.Mode != "prepared" {
			return badOption("invalid query mode (-M): \"%s\"", w.Mode)
		}
	case "rate":
		if o.rate <= 0 {
			return badOption("invalid rate limit: \"%s\"", o.rateArg)
		}
	case "latency-limit":
		if o.latencyLimit <= 0 {
			return badOption("invalid latency limit: \"%s\"", o.latencyArg)
		}
	case "max-tries":
		if o.maxTries < 0 {
			return badOption("invalid number of maximum tries: \"%s\"", o.triesArg)
		}
	case "sampling-rate":
		if o.samplingRate <= 0 || o.samplingRate > 1 {
			return badOption("invalid sampling rate: \"%s\"", o.samplingArg)
		}
	case "partition-method":
		return setup.CheckPartitionMethod(w.Setup.PartitionMethod)
	case "init-steps":
		return setup.CheckSteps(w.Setup.Steps)
	case "define":
		if _, _, err := pgscript.ParseDefine(w.Defines[len(w.Defines)-1]); err != nil {
			return scriptError(err)
		}
	case "random-seed":
		return o.setSeed(o.randomSeed, true, "--random-seed option")
	case "show-script":
		text, err := pgscript.ShowBuiltin(o.showScript)
		if err != nil {
			return &pgbenchError{msg: err.Error(), code: pgbenchBad, more: pgscript.ListBuiltins()}
		}
		o.shown = text
		return errListed // pgbench shows it and reads no further
	case "db":
		if o.db == "" { // an unset variable
			return badOption("--db is empty: give a postgres:// URL, sqlite:PATH or temp-postgres, or leave --db out")
		}
	case "pgbench-output":
		if o.output != "txnbench" && o.output != "strict" {
			return badOption("invalid --pgbench-output \"%s\": choose txnbench or strict", o.output)
		}
	case "telemetry":
		if o.telemetry != "on" && o.telemetry != "off" {
			return badOption("invalid --telemetry \"%s\": choose on or off", o.telemetry)
		}
	}
	return nil
}

// setSeed sets the random seed from arg ("time" when not given), as
// pgbench's set_random_seed, which says so when given one.
func (o *pgbenchOpts) setSeed(arg string, given bool, from string) error {
	if !given {
		arg = "time"
	}
	seed, err := prng.ParseSeed(arg)
	if err != nil {
		pe := &pgbenchError{msg: err.Error(), code: pgbenchBad}
		var se *prng.SeedError
		if errors.As(err, &se) {
			pe.more = "pgbench: detail: " + se.Detail() + "\npgbench: error: error while setting random seed from " + from + "\n"
		}
		return pe
	}
	o.w.RandomSeed = &seed
	if given {
		o.seedInfo += fmt.Sprintf("pgbench: setting random seed to %d\n", seed)
	}
	return nil
}

// libpqPortMessage is libpq's complaint about the port of a database URL
// (given by -p, PGPORT or the URL), when it has one: a port that is not
// an integer, or not one from 1 to 65535.
func libpqPortMessage(db string) (string, bool) {
	u, err := url.Parse(db)
	if err != nil {
		return "", false
	}
	port := cmp.Or(u.Query().Get("port"), u.Port())
	if _, given := u.Query()["port"]; !given && port == "" {
		port = os.Getenv("PGPORT")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(port), 10, 32)
	switch {
	case port == "":
		return "", false
	case err != nil:
		return fmt.Sprintf("invalid integer value \"%s\" for connection option \"port\"", port), true
	case n < 1 || n > 65535:
		return fmt.Sprintf("invalid port number: \"%s\"", port), true
	}
	return "", false
}

// cannotCreate is why a file that checkOutFile refused cannot be
// created, in strerror's words, as pgbench's %m says it: the error of an
// attempt (a file made after all is removed again).
func cannotCreate(name string) string {
	err := error(syscall.EACCES)
	if st, serr := os.Stat(name); serr == nil {
		if st.IsDir() {
			err = syscall.EISDIR
		}
	} else if f, oerr := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); oerr != nil {
		err = oerr
	} else {
		f.Close()
		os.Remove(name)
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = errno
	}
	msg := err.Error()
	return strings.ToUpper(msg[:1]) + msg[1:]
}
