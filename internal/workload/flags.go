package workload

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// flagKind is the pflag annotation that declares what a workload's flag
// does: "data" when it shapes the data a load makes (a load over existing
// data ignores it), "runtime" when it changes only how the run runs.
const flagKind = "txnbench/kind"

// DataFlags declares the named flags of fs as data-shaping: they take
// effect when the data is loaded, so a run over existing data records what
// that data was made with instead (see Loaded). Every flag a workload
// registers is declared with DataFlags or RuntimeFlags.
func DataFlags(fs *pflag.FlagSet, names ...string) { declare(fs, "data", names) }

// RuntimeFlags declares the named flags of fs as runtime-only: they change
// how the run runs, never the data, and a comparison may vary them.
func RuntimeFlags(fs *pflag.FlagSet, names ...string) { declare(fs, "runtime", names) }

// NegativeError is the one-line error for a workload's option --name
// given v, a negative count or duration, where 0 or more is meant.
func NegativeError(name string, v any) error {
	return fmt.Errorf("--%s %v is negative: give 0 or more", name, v)
}

func declare(fs *pflag.FlagSet, kind string, names []string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, flagKind, []string{kind}); err != nil {
			panic("declaring a workload flag: " + err.Error()) // a flag that is not registered
		}
	}
}

// IsDataFlag reports whether f is declared data-shaping; declared is false
// when f is declared neither way.
func IsDataFlag(f *pflag.Flag) (data, declared bool) {
	k := f.Annotations[flagKind]
	if len(k) == 0 {
		return false, false
	}
	return k[0] == "data", true
}

// SettingKey is the key under which a workload's Settings record flag
// name: the name with "_" for "-" (--flat-columns is flat_columns).
func SettingKey(name string) string { return strings.ReplaceAll(name, "-", "_") }

// DataSettings are the settings in s whose keys name data-shaping flags of fs.
func DataSettings(fs *pflag.FlagSet, s map[string]any) map[string]any {
	out := map[string]any{}
	if fs == nil {
		return out
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if data, _ := IsDataFlag(f); data {
			if v, ok := s[SettingKey(f.Name)]; ok {
				out[SettingKey(f.Name)] = v
			}
		}
	})
	return out
}
