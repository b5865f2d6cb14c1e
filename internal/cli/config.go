package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/userfile"
)

// envPrefix starts the environment variable of every flag: TXNBENCH_CLIENTS
// is --clients.
const envPrefix = "TXNBENCH_"

// ownEnv are flags no variable sets: those whose variable the command
// reads itself, with its own precedence (TXNBENCH_SHARD yields to
// --shards), and help.
var ownEnv = []string{"shard", "help"}

// envName is the variable that sets the flag name: TXNBENCH_ and the name
// in capitals, dashes as underscores.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// configUsage is --config's help line.
const configUsage = "a TOML file of flag settings (clients = 64); a flag or its TXNBENCH_NAME variable wins (env TXNBENCH_CONFIG)"

// applySettings gives cmd's flags not set on the command line their value
// from the environment and the --config file (see flagSettings), and
// records them. Any command with flags gets this; one that parses its own
// command line (study, pgbench) calls flagSettings itself.
func (a *app) applySettings(cmd *cobra.Command) error {
	if cmd.DisableFlagParsing {
		return nil
	}
	added, err := flagSettings(cmd.Flags(), cmd.CommandPath())
	a.recordSettings(added)
	return err
}

// recordSettings adds settings flagSettings made to the recorded command
// line, so a result says what it ran with.
func (a *app) recordSettings(added []string) {
	a.collectSecrets(added)
	a.args = append(a.args, added...)
}

// flagSettings gives fs's flags not set on the command line (of the
// command called cmdPath) their value from the environment (TXNBENCH_NAME),
// then from the TOML file of --config (or TXNBENCH_CONFIG): flag >
// environment > file. It returns each value so set as --name=value
// (--config=FILE among them when the file came from the environment).
func flagSettings(fs *pflag.FlagSet, cmdPath string) (added []string, err error) {
	set := func(f *pflag.Flag, value, from string) error {
		if err := fs.Set(f.Name, value); err != nil {
			return usage(fmt.Errorf("%s: %w: fix the value", from, err))
		}
		added = append(added, "--"+f.Name+"="+value)
		return nil
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if v, ok := os.LookupEnv(envName(f.Name)); ok && err == nil && !f.Changed && !slices.Contains(ownEnv, f.Name) {
			err = set(f, v, "the environment's "+envName(f.Name))
		}
	})
	if err != nil {
		return added, err
	}
	if path, _ := fs.GetString("config"); path != "" {
		err = applyFile(fs, cmdPath, path, set)
	}
	return added, err
}

// maxConfigFile is the largest --config file read: flag settings are a
// few lines.
const maxConfigFile = 1 << 20

// applyFile sets the flags a TOML file names (clients = 64, db = "...",
// pg-conf = ["a=1", "b=2"]) that are still unset. A file that cannot be
// read or parsed, a key that is no flag of the command, or a value the
// flag refuses is a usage error naming the fix.
func applyFile(fs *pflag.FlagSet, cmdPath, path string, set func(*pflag.Flag, string, string) error) error {
	var m map[string]any
	text, err := userfile.Read(path, maxConfigFile, "a TOML file of flag settings (clients = 64)")
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return usage(fmt.Errorf("--config %s: %w: give a readable TOML file of flag settings (clients = 64)", path, err))
	}
	if err != nil {
		return usage(fmt.Errorf("--config: %w", err))
	}
	md, err := toml.Decode(string(text), &m)
	if err != nil {
		return usage(fmt.Errorf("--config %s: %s: fix the TOML (each line a flag's name = value, e.g. clients = 64)", path, errclass.OneLine(err.Error())))
	}
	from := "--config " + path
	for _, key := range md.Keys() {
		if len(key) != 1 {
			// A dotted key (pg.conf = 1) or one inside a table, whose
			// own key came first and was refused unless it is no table.
			return usage(fmt.Errorf("%s: %q is a dotted key (a TOML table), not a flag: write each flag on a line of its own as its name without the dashes (clients = 64), its values as a list (pg-conf = [\"a=1\"])", from, key.String()))
		}
		name := key[0]
		f := fs.Lookup(name)
		if f == nil || name == "config" {
			return usage(fmt.Errorf("%s: %q is no flag of %s: each key is one of its flags without the dashes (see --help)", from, name, cmdPath))
		}
		if f.Changed {
			continue // the command line or the environment wins
		}
		values, err := settingValues(m[name])
		if err != nil {
			return usage(fmt.Errorf("%s: %s: %w", from, name, err))
		}
		for _, v := range values {
			if err := set(f, v, from); err != nil {
				return err
			}
		}
	}
	return nil
}

// settingValues is a TOML value as flag arguments: one for a string,
// number or boolean, one each for an array's elements.
func settingValues(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case int64:
		return []string{strconv.FormatInt(v, 10)}, nil
	case float64:
		return []string{strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case []any:
		var out []string
		for _, e := range v {
			s, err := settingValues(e)
			if err != nil || len(s) != 1 {
				return nil, errors.New("an array holds strings, numbers or booleans only")
			}
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %T is no flag value: give a string, number, boolean or an array of them", v)
}
