package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// pgbenchLongOptions are pgbench 15's long options in the order of its
// long_options table: getopt_long accepts any unambiguous prefix of them
// and lists them in this order when a prefix is ambiguous.
var pgbenchLongOptions = []string{
	"builtin", "client", "connect", "debug", "define", "file", "fillfactor", "host", "initialize",
	"init-steps", "jobs", "log", "latency-limit", "no-vacuum", "port", "progress", "protocol", "quiet",
	"report-per-command", "rate", "scale", "select-only", "skip-some-updates", "time", "transactions",
	"username", "vacuum-all", "unlogged-tables", "tablespace", "index-tablespace", "sampling-rate",
	"aggregate-interval", "progress-timestamp", "log-prefix", "foreign-keys", "random-seed",
	"show-script", "partitions", "partition-method", "failures-detailed", "max-tries", "verbose-errors",
}

// getoptLong reads args as glibc's getopt_long reads pgbench's command
// line and returns them in a form pflag parses the same way: each option
// by its full name with its argument after "=", then "--" and the
// operands. Prefixes of pgbench's long options are expanded (txnbench's
// own are taken only in full), "-c=1" gives -c the argument "=1", and
// getopt's complaints come in its words. At a complaint, the options
// before it are still returned, so that pgbench's checks of those come
// first, as pgbench makes them while reading.
func getoptLong(fs *pflag.FlagSet, args []string) ([]string, error) {
	var opts, operands []string
	takesArg := func(f *pflag.Flag) bool { return f.NoOptDefVal == "" }
	done := func(err error) ([]string, error) {
		return append(append(opts, "--"), operands...), err
	}
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
		if strings.HasPrefix(o, name) {
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
