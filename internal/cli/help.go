package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/workload"
)

// helpWidth is the widest line of a grouped help.
const helpWidth = 100

// helpGroups are the groups of run's flags, in the order the help shows
// them, each with its flags in order. A workload's own flags follow them;
// a flag in none of them is listed last, under "Other".
var helpGroups = []struct {
	title string
	flags []string
}{
	{"Database", []string{"db", "pg-bin", "pg-conf", "mariadb-conf", "seed", "reinit", "config"}},
	{"Load shape", []string{"clients", "duration", "iterations", "ramp", "warmup", "rate", "latency-limit", "isolation", "max-tries", "grace"}},
	{"Connections", []string{"conn", "pool-max", "pool-min", "pool-lifetime", "pool-health-check", "connect-timeout"}},
	{"Pooler", []string{"via", "pool-mode", "pgbouncer-pool-size", "pgbouncer-bin", "poolers"}},
	{"Replication", []string{"replicas", "replication", "read-from"}},
	{"Network and CPUs", []string{"network", "pooler-network", "tls", "cpus"}},
	{"Faults", []string{"fault"}},
	{"Outputs", []string{"json", "html", "csv", "jsonl", "progress", "min-success", "cpu-profile"}},
	{"Telemetry", []string{"telemetry", "telemetry-sample", "metrics-addr"}},
	{"Live dashboard", []string{"dashboard", "dashboard-public", "dashboard-save"}},
	{"Shards (one run split across processes or machines)", []string{"shard", "shards", "run-id", "shard-wait"}},
}

// helpDocs is the page to read about a workload, beside the README.
var helpDocs = map[string]string{
	"train-events": "docs/train-events.md",
	"tpcc":         "docs/tpcc.md",
	"workflow":     "docs/workflow.md",
	"script":       "docs/pgbench.md",
}

// helpExample is what a workload's examples need besides the common flags.
var helpExample = map[string]string{"script": " -b tpcb-like"}

// groupedHelp prints the help of "run WORKLOAD" (or "init WORKLOAD"): its
// flags in groups, lines at most helpWidth wide, three examples and the
// docs to read.
func groupedHelp(w io.Writer, cmd *cobra.Command, def workload.Def) {
	fs := cmd.Flags()
	verb := cmd.Parent().Name()
	fmt.Fprintln(w, wrap(def.Summary, helpWidth, ""))
	fmt.Fprintf(w, "\nUsage:\n  txnbench %s %s [flags]\n", verb, def.Name)
	own := pflag.NewFlagSet(def.Name, pflag.ContinueOnError)
	own.SortFlags = false
	workload.Flags(def.New(), own)
	listed := map[string]bool{}
	group := func(title string, names []string) {
		var fl []*pflag.Flag
		for _, n := range names {
			if f := fs.Lookup(n); f != nil && !f.Hidden && !listed[n] {
				fl = append(fl, f)
				listed[n] = true
			}
		}
		if len(fl) > 0 {
			fmt.Fprintf(w, "\n%s:\n", title)
			for _, f := range fl {
				writeFlag(w, f)
			}
		}
	}
	for _, g := range helpGroups {
		group(g.title, g.flags)
	}
	var ownNames, other []string
	own.VisitAll(func(f *pflag.Flag) { ownNames = append(ownNames, f.Name) })
	group("Workload "+def.Name, ownNames)
	fs.VisitAll(func(f *pflag.Flag) {
		if !listed[f.Name] && f.Name != "help" {
			other = append(other, f.Name)
		}
	})
	group("Other", other)
	ex := "txnbench " + verb + " " + def.Name + helpExample[def.Name]
	fmt.Fprintf(w, "\nExamples:\n"+
		"  %[1]s --db temp-postgres --clients 32 --duration 60s\n"+
		"  %[1]s --db postgres://bench@db/bench --via pgbouncer --json r.json\n"+
		"  %[1]s --config bench.toml --rate 500 --latency-limit 50ms\n", ex)
	docs := "README.md (Databases, Connections, Settings from a file or the environment)"
	if page, ok := helpDocs[def.Name]; ok {
		docs += " and " + page
	}
	fmt.Fprintln(w, "\n"+wrap("Read "+docs+". Every flag may come from --config FILE (TOML) or TXNBENCH_NAME.", helpWidth, ""))
}

// writeFlag writes one flag: its name and type, then its usage and default
// wrapped in a column.
func writeFlag(w io.Writer, f *pflag.Flag) {
	const col = 34
	typ, use := pflag.UnquoteUsage(f)
	name := "      --" + f.Name
	if f.Shorthand != "" {
		name = "  -" + f.Shorthand + ", --" + f.Name
	}
	if typ != "" {
		name += " " + typ
	}
	switch f.DefValue {
	case "", "0", "false", "[]", "0s":
	default:
		if !strings.Contains(use, "(default:") && !strings.Contains(use, "(default ") {
			use += " (default " + f.DefValue + ")"
		}
	}
	pad := strings.Repeat(" ", col)
	text := wrap(use, helpWidth, pad)
	if len(name) < col-1 {
		fmt.Fprintln(w, name+strings.Repeat(" ", col-len(name))+strings.TrimPrefix(text, pad))
		return
	}
	fmt.Fprintln(w, name+"\n"+text)
}

// wrap breaks s into lines at most width wide (a longer word stands
// alone), every line starting with indent.
func wrap(s string, width int, indent string) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(s) {
		if line != indent && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}
