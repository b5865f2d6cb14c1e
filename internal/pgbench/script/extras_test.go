package script

import (
	"errors"
	"strings"
	"testing"
)

// TestExtrasLeavePgbenchAlone: txnbench's own builtins parse, are found
// by their whole names only, and change nothing pgbench's names mean:
// its list, its prefixes and its errors stay pgbench's.
func TestExtrasLeavePgbenchAlone(t *testing.T) {
	for _, name := range ExtraNames() {
		s, err := Builtin(name)
		if err != nil || s.Name != name || len(s.Commands) == 0 {
			t.Errorf("Builtin(%q) = %v, %v", name, s, err)
		}
		if FamilyOf(name) != FamilyYCSB && FamilyOf(name) != FamilySysbench {
			t.Errorf("FamilyOf(%q) = %q", name, FamilyOf(name))
		}
		if strings.Contains(ListBuiltins(), name) {
			t.Errorf("pgbench's -b list shows %s", name)
		}
	}
	for name, found := range map[string]int{"ycsb": 0, "oltp": 0, "o": 0, "y": 0, "s": 2, "ycsb-a-": 0} {
		_, err := Builtin(name)
		var be *BuiltinError
		if !errors.As(err, &be) || be.Found != found {
			t.Errorf("Builtin(%q) error %v, want %d found", name, err, found)
		}
	}
	if FamilyOf("tpcb") != FamilyPgbench || FamilyOf("nope") != "" {
		t.Errorf("FamilyOf: tpcb %q, nope %q", FamilyOf("tpcb"), FamilyOf("nope"))
	}
}
