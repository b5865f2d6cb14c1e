package cli

import "github.com/spf13/pflag"

// flagKind is the pflag annotation that declares what a command's own flag
// is (a workload's flags are declared by the workload, see
// workload.DataFlags): every flag run, init and study register is declared
// with declareFlags, and the lists of flags a study may not vary, refuses,
// or a suite does not record are derived from it.
const flagKind = "txnbench/cli-kind"

// The kinds of a command's own flag.
const (
	// kindSetting is a setting of what is measured: a study may vary it
	// and a suite records it.
	kindSetting = "setting"
	// kindOutput names a file one run writes: never varied, never a
	// recorded setting, and refused by a study, which writes its runs'
	// files into its --out directory instead.
	kindOutput = "output"
	// kindControl steers the command or names where its outputs go,
	// without changing what is measured: never varied, never a recorded
	// setting.
	kindControl = "control"
)

// declareFlags declares the named flags of fs as kind.
func declareFlags(fs *pflag.FlagSet, kind string, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, flagKind, []string{kind}); err != nil {
			panic("declaring a flag: " + err.Error()) // a flag that is not registered
		}
	}
}

// kindOf is the kind f was declared as, "" when it was not (a workload's
// flag, which is a setting).
func kindOf(f *pflag.Flag) string {
	if k := f.Annotations[flagKind]; len(k) > 0 {
		return k[0]
	}
	return ""
}

// isSetting reports whether the flag of fs called name is a setting of
// what is measured: false for an output or a control flag, and for a name
// fs does not have.
func isSetting(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	k := kindOf(f)
	return k != kindOutput && k != kindControl
}

// flagsOfKind are the names of fs's flags declared as kind.
func flagsOfKind(fs *pflag.FlagSet, kind string) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if kindOf(f) == kind {
			names = append(names, f.Name)
		}
	})
	return names
}
