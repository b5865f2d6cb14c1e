package result

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Incomparable is Merge's refusal of results that are not parts of one
// run: Setting has ValueA in result A and ValueB in result B (indexes into
// Merge's argument). Names, when set, name the results (their files).
type Incomparable struct {
	Setting        string
	A, B           int
	ValueA, ValueB string
	Names          []string
}

func (e *Incomparable) Error() string {
	a, b := resultNames(e.A, e.B, e.Names)
	return fmt.Sprintf("cannot merge: %s differs (%s in %s, %s in %s); merge parts of one run only", e.Setting, e.ValueA, a, e.ValueB, b)
}

// SamePart is Merge's refusal of one part of a run given twice (one file
// named twice, by any path, or a copy of it): results A and B (indexes
// into Merge's argument) started at the same instant on the same machine
// with the same seed. Merging them would count every op twice. Names,
// when set, name the results (their files).
type SamePart struct {
	A, B  int
	Names []string
}

func (e *SamePart) Error() string {
	a, b := resultNames(e.A, e.B, e.Names)
	return fmt.Sprintf("cannot merge: %s and %s are the same part of a run (same start, machine and seed), which would count it twice: give each part once", a, b)
}

// resultNames names results a and b (indexes into Merge's argument) by
// names when it names both, else "result N" counting from 1.
func resultNames(a, b int, names []string) (string, string) {
	if a < len(names) && b < len(names) {
		return names[a], names[b]
	}
	return fmt.Sprintf("result %d", a+1), fmt.Sprintf("result %d", b+1)
}

// samePart returns a *SamePart for the first two results that are one
// part of a run. Shards of a split run are told apart by their index
// (sameRun refuses one given twice).
func samePart(rs []*Result) error {
	for i, a := range rs {
		for j := i + 1; j < len(rs); j++ {
			b := rs[j]
			if len(a.Shards) == 0 && len(b.Shards) == 0 && !a.Started.IsZero() && a.Started.Equal(b.Started) && a.Machine.Hostname == b.Machine.Hostname && a.Config.Seed == b.Config.Seed {
				return &SamePart{A: i, B: j}
			}
		}
	}
	return nil
}

// Comparable returns an *Incomparable unless every result ran the same
// workload with the same workload settings against the same kind of
// database (dialect): then they can be parts of one run. Clients, seeds,
// durations and connection strategies may differ between the parts.
func Comparable(rs []*Result) error {
	for i, r := range rs[1:] {
		diff := func(setting, a, b string) error {
			if a == b {
				return nil
			}
			return &Incomparable{Setting: setting, A: 0, B: i + 1, ValueA: a, ValueB: b}
		}
		if err := diff("workload", rs[0].Workload, r.Workload); err != nil {
			return err
		}
		if err := diff("database", rs[0].Server.Dialect, r.Server.Dialect); err != nil {
			return err
		}
		keys := map[string]bool{}
		for k := range rs[0].Settings {
			keys[k] = true
		}
		for k := range r.Settings {
			keys[k] = true
		}
		sorted := slices.Sorted(maps.Keys(keys))
		for _, k := range sorted {
			if err := diff(k, rs[0].settingText(k), r.settingText(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// dataSeed is the setting a run records when it used data made with
// another seed than its own; without it the data was made with its seed.
const dataSeed = "data_seed"

// settingText is r's workload setting k as text: a string as it is,
// anything else as JSON, "(unset)" when r lacks it. A run without a data
// seed made its data with its own seed: two runs on the same data (one
// loaded it, the other found it) have the same. Seeds are compared as
// saved results hold them, to float64's precision.
func (r *Result) settingText(k string) string {
	v, ok := r.Settings[k]
	if k == dataSeed { // a saved result's is a JSON number (float64): compared as one
		f := float64(r.Config.Seed)
		switch n := v.(type) {
		case uint64:
			f = float64(n)
		case float64:
			f = n
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if !ok {
		return "(unset)"
	}
	if str, ok := v.(string); ok {
		return str
	}
	b, _ := json.Marshal(v)
	return string(b)
}
