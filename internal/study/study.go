package study

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Vary is one --vary: a setting and the values it takes.
type Vary struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// ParseVary reads "key=v1,v2,...". Values may not be empty.
func ParseVary(s string) (Vary, error) {
	key, list, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(strings.TrimLeft(key, "- \t")) // --name, as the flag: spaces and dashes, in any order, are not the name
	if !ok || key == "" {
		return Vary{}, fmt.Errorf("--vary %q: want name=value1,value2,... e.g. --vary clients=8,16,32", s)
	}
	var vals []string
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v == "" {
			return Vary{}, fmt.Errorf("--vary %q: empty value in the list; give values separated by commas", s)
		}
		if slices.Contains(vals, v) {
			return Vary{}, fmt.Errorf("--vary %q: %s is given twice, which would run the same cells twice: give each value once (--repeat runs every cell again)", s, v)
		}
		vals = append(vals, v)
	}
	return Vary{Key: key, Values: vals}, nil
}

// Setting is one key=value of a cell.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Cell is one combination of the varied settings.
type Cell struct {
	Settings []Setting
	// Shown names a setting's value, by key, where key=value would not
	// say what it is: "pg 17.10" for pg-bin=DIR.
	Shown map[string]string
}

// Label names the cell, e.g. "variant=jsonb via=pgbouncer" or
// "pg 17.10 clients=8".
func (c Cell) Label() string {
	parts := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		parts[i] = s.Key + "=" + s.Value
		if sh, ok := c.Shown[s.Key]; ok {
			parts[i] = sh
		}
	}
	return strings.Join(parts, " ")
}

// Args are the cell's settings as command-line flags.
func (c Cell) Args() []string {
	args := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		args[i] = "--" + s.Key + "=" + s.Value
	}
	return args
}

// Value returns the cell's value for key, if it varies.
func (c Cell) Value(key string) (string, bool) {
	for _, s := range c.Settings {
		if s.Key == key {
			return s.Value, true
		}
	}
	return "", false
}

// Expand makes the cross product of the variations, the first varying
// slowest, in the order given.
func Expand(vs []Vary) ([]Cell, error) {
	if len(vs) == 0 {
		return nil, errors.New("nothing to vary: give at least one --vary name=v1,v2")
	}
	seen := map[string]bool{}
	cells := []Cell{{}}
	for _, v := range vs {
		if seen[v.Key] {
			return nil, fmt.Errorf("--vary %s given twice: list all its values in one --vary", v.Key)
		}
		seen[v.Key] = true
		var next []Cell
		for _, c := range cells {
			for _, val := range v.Values {
				s := append(append([]Setting{}, c.Settings...), Setting{v.Key, val})
				next = append(next, Cell{Settings: s})
			}
		}
		cells = next
	}
	return cells, nil
}

// Step is one run of a study: a cell's repetition.
type Step struct {
	Cell, Rep int // indexes into the cells; repetition from 0
}

// Schedule interleaves repetitions: every cell once (A B C), then again
// (A B C), so each sees the same drift of a noisy machine.
func Schedule(cells, repeat int) []Step {
	var steps []Step
	for rep := 0; rep < repeat; rep++ {
		for c := 0; c < cells; c++ {
			steps = append(steps, Step{Cell: c, Rep: rep})
		}
	}
	return steps
}
