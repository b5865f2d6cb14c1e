package cli

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/workload"
)

// TestEveryFlagIsDeclared: every flag init, run and study register
// themselves is declared a setting, an output or a control flag, so a new
// flag cannot be forgotten (a workload's own flags are declared by the
// workload); the table pins the output and control flags, which a study
// never varies and a suite never records.
func TestEveryFlagIsDeclared(t *testing.T) {
	def, _ := workload.Lookup(workload.Names()[0])
	initFS := pflag.NewFlagSet("init", pflag.ContinueOnError)
	newRunSpec(def, initFS, false)
	runFS := pflag.NewFlagSet("run", pflag.ContinueOnError)
	newRunSpec(def, runFS, true)
	studyFS, _, _, err := studyFlagSet(def, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name            string
		fs              *pflag.FlagSet
		output, control []string
	}{
		{"init", initFS, nil, []string{"reinit"}},
		{"run", runFS, []string{"cpu-profile", "csv", "html", "json", "jsonl"}, []string{"dashboard", "dashboard-public", "dashboard-save", "metrics-addr", "min-success", "progress", "reinit"}},
		{"study", studyFS, []string{"cpu-profile", "csv", "html", "json", "jsonl"}, []string{"compare", "config", "dashboard", "dashboard-public", "dashboard-save", "help", "metrics-addr", "min-success", "out", "progress", "reinit", "repeat", "settle", "vary"}},
	} {
		c.fs.VisitAll(func(f *pflag.Flag) {
			if _, byWorkload := workload.IsDataFlag(f); !byWorkload && kindOf(f) == "" {
				t.Errorf("%s: --%s is not declared: declare it with declareFlags as a setting, an output or a control flag", c.name, f.Name)
			}
		})
		if got := flagsOfKind(c.fs, kindOutput); !slices.Equal(got, c.output) {
			t.Errorf("%s: output flags %v, want %v", c.name, got, c.output)
		}
		if got := flagsOfKind(c.fs, kindControl); !slices.Equal(got, c.control) {
			t.Errorf("%s: control flags %v, want %v", c.name, got, c.control)
		}
	}
}
