package workload_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/workload"
	_ "github.com/txnbench/txnbench/internal/workload/connectoverhead"
	_ "github.com/txnbench/txnbench/internal/workload/pgbenchscript"
	_ "github.com/txnbench/txnbench/internal/workload/tpcc"
	_ "github.com/txnbench/txnbench/internal/workload/trainevents"
	_ "github.com/txnbench/txnbench/internal/workload/workflow"
)

// TestEveryFlagIsDeclared: every flag of every registered workload is
// declared data-shaping or runtime, so a new flag cannot be forgotten; the
// table pins which are which.
func TestEveryFlagIsDeclared(t *testing.T) {
	want := map[string][]string{ // the data-shaping flags
		"connect-overhead": {"rows"},
		"script":           {"foreign-keys", "partition-method", "partitions", "record-count", "scale", "setup", "table-size", "tables"},
		"tpcc":             {"customers-per-district", "items", "warehouses"},
		"train-events":     {"flat-columns", "inverted-index", "payload", "rows", "variant"},
		"workflow":         nil, // no initial data: every run adds its own workflows
	}
	for _, name := range workload.Names() {
		def, _ := workload.Lookup(name)
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		workload.Flags(def.New(), fs)
		var data []string
		fs.VisitAll(func(f *pflag.Flag) {
			isData, declared := workload.IsDataFlag(f)
			if !declared {
				t.Errorf("%s: --%s is declared neither data-shaping (workload.DataFlags) nor runtime (workload.RuntimeFlags)", name, f.Name)
			}
			if isData {
				data = append(data, f.Name)
			}
		})
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: add it to this table", name)
		}
		if !slices.Equal(data, w) {
			t.Errorf("%s: data-shaping flags %v, want %v", name, data, w)
		}
	}
}

// TestLoaded: a load mark keeps the data-shaping settings and the seed; a
// run asking others records what the data was made with, in the types its
// settings have, and says which flags did not apply (not the seed: it
// seeds the run's clients too).
func TestLoaded(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("rows", 0, "")
	fs.String("flat-columns", "", "")
	fs.Duration("delay", 0, "")
	workload.DataFlags(fs, "rows", "flat-columns")
	workload.RuntimeFlags(fs, "delay")
	made := map[string]any{"rows": 200, "flat_columns": "manual", "delay": "1s"}
	b, _ := json.Marshal(workload.LoadMark(fs, made, 1))
	var l workload.Loaded
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	if len(l) != 3 || string(l["rows"]) != "200" || string(l["flat_columns"]) != `"manual"` || string(l["seed"]) != "1" {
		t.Fatalf("mark %s: want rows, flat_columns and seed only", b)
	}
	asked := map[string]any{"rows": 5000, "flat_columns": "generated", "delay": "2s"}
	diffs, was := l.Differences(asked)
	if fmt.Sprint(diffs, was) != "[--flat-columns manual --rows 200] [--flat-columns generated --rows 5000]" {
		t.Errorf("differences %q, asked %q", diffs, was)
	}
	l.Apply(asked, 2)
	if asked["rows"] != 200 || asked["flat_columns"] != "manual" || asked["delay"] != "2s" || asked["data_seed"] != uint64(1) {
		t.Errorf("settings %v: want rows 200 and data_seed 1, delay as asked", asked)
	}
	same := map[string]any{"rows": 200, "flat_columns": "manual"}
	if made, _ := l.Differences(same); len(made) != 0 {
		t.Errorf("differences %q from the data's own settings: want none", made)
	}
	l.Apply(same, 1)
	if _, ok := same["data_seed"]; ok {
		t.Errorf("settings %v: data_seed recorded though it is the run's seed", same)
	}
}

// TestParse: Parse sets a workload's options from args and returns what
// parsing or validating them refuses.
func TestParse(t *testing.T) {
	def, err := workload.Lookup("train-events")
	if err != nil {
		t.Fatal(err)
	}
	w := def.New()
	if err := workload.Parse(w, "--rows", "77"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(workload.Settings(w)["rows"]); got != "77" {
		t.Errorf("rows %s after --rows 77", got)
	}
	for says, args := range map[string][]string{
		"unknown flag: --nosuch": {"--nosuch"},
		"--min-batch 0":          {"--min-batch", "0"},
	} {
		if err := workload.Parse(def.New(), args...); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", args, err, says)
		}
	}
}
