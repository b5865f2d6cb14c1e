package trainevents

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// variant is one point on the three axes of the workload's schema.
type variant struct {
	TextPayload   bool // payload stored as TEXT instead of JSONB
	ManualColumns bool // flat columns written by the application, not generated
	InvertedIndex bool // inverted (GIN) index on the payload
}

// presets are the named variants of seed 000.
var presets = map[string]variant{
	"jsonb":  {InvertedIndex: true},
	"manual": {ManualColumns: true},
	"text":   {TextPayload: true},
}

func presetNames() string {
	return strings.Join(slices.Sorted(maps.Keys(presets)), ", ")
}

// name is the preset's name, or the axes spelled out, and names the tables.
func (v variant) name() string {
	for n, p := range presets {
		if p == v {
			return n
		}
	}
	s := "jsonb"
	if v.TextPayload {
		s = "text"
	}
	if v.ManualColumns {
		s += "_manual"
	} else {
		s += "_generated"
	}
	if v.InvertedIndex {
		s += "_inverted"
	}
	return s
}

func (v variant) validate() error {
	if v.TextPayload && v.InvertedIndex {
		return fmt.Errorf("a TEXT payload cannot have an inverted index (the jsonb preset has one): add --inverted-index=false, use --variant text, or --payload jsonb")
	}
	return nil
}

func (v variant) payloadType() string {
	if v.TextPayload {
		return "text"
	}
	return "jsonb"
}

func (v variant) flatColumns() string {
	if v.ManualColumns {
		return "manual"
	}
	return "generated"
}
